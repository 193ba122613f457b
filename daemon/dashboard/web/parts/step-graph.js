// A workflow's steps drawn as a graph (SVG), placed by the daemon (daemon/dashboard/step-graph.ts):
// one box per step, arrows for next, a condition's two ways, a parallel step's branches and
// on_error paths. Given `states` (step id -> state), it shows where a run is on the same graph.
// The same graph follows in words, for screen readers and for reading at a narrow width.
import { html, useId } from '../lib.js';

const NODE_W = 176;
const NODE_H = 50;
const GAP_X = 36;
const GAP_Y = 58;
const PAD = 12;
/** Room left of the boxes for the edges that skip rows (they go around, not through, boxes). */
const CHANNEL = 28;

const EDGE_WORDS = {
  if_true: 'if true',
  if_false: 'if false',
  branch: 'branch',
  on_error: 'on error',
};

export const STATE_WORDS = {
  completed: 'completed',
  copied: 'completed (copied)',
  running: 'running',
  waiting: 'waiting',
  failed: 'failed',
  cancelled: 'cancelled',
  skipped: 'skipped',
  ahead: 'not reached yet',
};

/**
 * @typedef {keyof typeof STATE_WORDS} StepState Where a run is at a step, as the graph says it.
 * @typedef {import('../lib.js').StepGraphData['nodes'][number]} GraphNode
 * @typedef {import('../lib.js').StepGraphData['edges'][number]} GraphEdge
 * @typedef {{ x: number, y: number }} Point
 */

/**
 * @param {string} text
 * @param {number} max
 */
const clip = (text, max) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/**
 * `graph` as the daemon sends it; `states` maps step ids to a key of STATE_WORDS (optional).
 * @param {{ graph: import('../lib.js').StepGraphData, states?: Map<string, StepState>, label: string }} props
 */
export function StepGraph({ graph, states, label }) {
  // Each graph its own arrow head: a page may show several (a workflow's versions).
  const arrow = `arrow${useId()}`;
  const sizes = new Map();
  for (const node of graph.nodes) sizes.set(node.layer, (sizes.get(node.layer) ?? 0) + 1);
  const place = new Map(
    graph.nodes.map((node) => {
      const shift = (graph.columns - sizes.get(node.layer)) / 2;
      return [
        node.id,
        {
          x: PAD + CHANNEL + (node.column + shift) * (NODE_W + GAP_X),
          y: PAD + node.layer * (NODE_H + GAP_Y),
        },
      ];
    }),
  );
  const width = PAD * 2 + CHANNEL + graph.columns * NODE_W + Math.max(0, graph.columns - 1) * GAP_X;
  const height = PAD * 2 + graph.layers * NODE_H + Math.max(0, graph.layers - 1) * GAP_Y;
  const names = new Map(graph.nodes.map((node) => [node.id, node.name]));
  return html`<div class="graph-scroll" tabindex="0" role="group" aria-label=${label}>
      <svg
        class="step-graph"
        width=${width}
        height=${height}
        viewBox=${`0 0 ${width} ${height}`}
        role="img"
        aria-label=${`${label}: ${graph.nodes.length} steps, described below`}
      >
        <defs>
          <marker
            id=${arrow}
            viewBox="0 0 10 10"
            refX="9"
            refY="5"
            markerWidth="7"
            markerHeight="7"
            orient="auto-start-reverse"
          >
            <path d="M 0 0 L 10 5 L 0 10 z" class="arrow-head" />
          </marker>
        </defs>
        ${graph.nodes.map((node) => edgesOf(node, graph.edges, place, arrow))}
        ${graph.nodes.map((node) => {
          // Every node was placed above.
          const at = /** @type {{ x: number, y: number }} */ (place.get(node.id));
          const state = states?.get(node.id);
          return html`<g
            class=${`node${state ? ` state-${state}` : ''}`}
            data-step=${node.id}
            data-state=${state}
            transform=${`translate(${at.x} ${at.y})`}
          >
            <title>${node.name} (${node.type})${state ? `: ${STATE_WORDS[state]}` : ''}</title>
            <rect width=${NODE_W} height=${NODE_H} rx="6" />
            <text x="10" y="20" class="node-name">${clip(node.name, 22)}</text>
            <text x="10" y="38" class="node-sub">
              ${clip(state ? `${node.type} · ${STATE_WORDS[state]}` : node.type, 28)}
            </text>
          </g>`;
        })}
      </svg>
    </div>
    <ol class="graph-words" aria-label=${`${label}, in words`}>
      ${graph.nodes.map((node) => {
        const state = states?.get(node.id);
        const out = graph.edges
          .filter((edge) => edge.from === node.id)
          .map((edge) => `${edgeWords(edge, node, 'then')} → ${names.get(edge.to)}`);
        const text = [
          `${node.name} (${node.type})`,
          state ? `: ${STATE_WORDS[state]}` : '',
          out.length > 0 ? `; ${out.join(', ')}` : '; ends its branch',
        ].join('');
        return html`<li data-step=${node.id}>${text}</li>`;
      })}
    </ol>`;
}

/**
 * What an edge says; a parallel step's next runs once its branches joined.
 * @param {GraphEdge} edge
 * @param {GraphNode} from
 * @param {string} plainNext
 */
function edgeWords(edge, from, plainNext) {
  if (edge.kind !== 'next') return EDGE_WORDS[edge.kind];
  return from.type === 'parallel' ? 'after the branches' : plainNext;
}

/**
 * The arrows leaving one step, spread over its bottom edge, each with its kind's words.
 * @param {GraphNode} node
 * @param {GraphEdge[]} edges
 * @param {Map<string, Point>} place
 * @param {string} arrow
 */
function edgesOf(node, edges, place, arrow) {
  const out = edges.filter((edge) => edge.from === node.id);
  // Every node is placed, and every edge joins two nodes of the graph (step-graph.ts).
  const from = /** @type {Point} */ (place.get(node.id));
  return out.map((edge, index) => {
    const to = /** @type {Point} */ (place.get(edge.to));
    const words = edgeWords(edge, node, '');
    let d;
    let label;
    if (to.y - from.y > NODE_H + GAP_Y) {
      // Skips a row: out of the box's left side, down the channel, into the target's left side.
      const x = PAD + CHANNEL / 2;
      const y1 = from.y + NODE_H / 2;
      const y2 = to.y + NODE_H / 2;
      d = `M ${from.x} ${y1} H ${x} V ${y2} H ${to.x - 2}`;
      label = { x: x + 4, y: to.y - 8, anchor: 'start' };
    } else {
      const x1 = from.x + (NODE_W * (index + 1)) / (out.length + 1);
      const y1 = from.y + NODE_H;
      const x2 = to.x + NODE_W / 2;
      const y2 = to.y;
      const bend = Math.max(24, (y2 - y1) / 2);
      d = `M ${x1} ${y1} C ${x1} ${y1 + bend}, ${x2} ${y2 - bend}, ${x2} ${y2 - 2}`;
      // The curve's middle (t = 0.5 of the cubic) carries the label.
      label = {
        x: (x1 + 3 * x1 + 3 * x2 + x2) / 8,
        y: (y1 + 3 * (y1 + bend) + 3 * (y2 - bend) + y2) / 8,
        anchor: 'middle',
      };
    }
    return html`<g class=${`edge edge-${edge.kind}`} data-from=${edge.from} data-to=${edge.to}>
      <path d=${d} marker-end=${`url(#${arrow})`} />
      ${
        words &&
        html`<text x=${label.x} y=${label.y} text-anchor=${label.anchor} class="edge-label">
          ${words}
        </text>`
      }
    </g>`;
  });
}

/**
 * Where a run is, per step: its latest attempt's state. A parallel step has its own result only
 * once its branches joined: before that it is running if one of its branches began. Any other
 * step without a result is skipped once the run ended, else not reached yet. `copied` is the
 * number of leading results a re-run copied.
 * @param {import('../lib.js').Run} run
 * @param {import('../lib.js').StepGraphData} graph
 * @param {number} [copied]
 * @returns {Map<string, StepState>}
 */
export function runStates(run, graph, copied = 0) {
  /** @type {Map<string, StepState>} */
  const states = new Map();
  run.step_results.forEach((entry, index) => {
    states.set(entry.step_id, index < copied ? 'copied' : stateOf(entry.status));
  });
  const ended = !['running', 'awaiting_approval'].includes(run.status);
  /** @param {string} id */
  const branchBegan = (id) =>
    graph.edges.some((edge) => edge.from === id && edge.kind === 'branch' && states.has(edge.to));
  for (const node of graph.nodes) {
    if (states.has(node.id)) continue;
    if (!ended && branchBegan(node.id)) states.set(node.id, 'running');
    else states.set(node.id, ended ? 'skipped' : 'ahead');
  }
  return states;
}

/**
 * @param {string} status
 * @returns {StepState}
 */
function stateOf(status) {
  if (status === 'completed') return 'completed';
  if (status === 'running') return 'running';
  if (['waiting', 'awaiting_approval', 'retrying'].includes(status)) return 'waiting';
  if (status === 'cancelled') return 'cancelled';
  return 'failed';
}
