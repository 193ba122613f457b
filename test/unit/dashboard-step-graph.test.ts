// The step graph the workflow and run pages draw: every edge of the step registry with its kind,
// each step on a row below every step that leads to it, what follows a parallel step's join
// below all of its branches, and rows ordered to follow their parents.
import test from 'ava';
import type { TypedStep } from '../../shared/schemas/steps.js';
import { stepGraph } from '../../daemon/dashboard/step-graph.js';

const step = (
  id: string,
  type: string,
  config: object = {},
  next: string | null = null,
  onError: string | null = null,
) =>
  ({
    id,
    name: id,
    type,
    agent_id: null,
    config,
    next_step_id: next,
    on_error: onError,
  }) as TypedStep;

const steps = [
  step('check', 'condition', { if_true: 'fan', if_false: 'small' }),
  step('fan', 'parallel', { steps: ['a', 'b'] }, 'join'),
  step('a', 'webhook', {}, 'a2', 'rescue'),
  step('a2', 'wait'),
  step('rescue', 'wait'),
  step('b', 'wait'),
  step('small', 'wait'),
  step('join', 'wait'),
];

test('every edge is drawn once with its kind, and no edge points up', (t) => {
  const graph = stepGraph(steps);
  t.deepEqual(
    graph.edges.map((edge) => `${edge.from}>${edge.to}:${edge.kind}`),
    [
      'check>fan:if_true',
      'check>small:if_false',
      'fan>join:next',
      'fan>a:branch',
      'fan>b:branch',
      'a>a2:next',
      'a>rescue:on_error',
    ],
  );
  const node = new Map(graph.nodes.map((n) => [n.id, n]));
  for (const edge of graph.edges) t.true(node.get(edge.from)!.layer < node.get(edge.to)!.layer);
  t.deepEqual(
    graph.nodes.map((n) => [n.id, n.layer, n.column]),
    [
      ['check', 0, 0],
      ['fan', 1, 0],
      ['a', 2, 0],
      ['a2', 3, 0],
      ['rescue', 3, 1],
      ['b', 2, 1],
      ['small', 1, 1],
      ['join', 4, 0],
    ],
    'the join below the deepest step of the branches; children under their parents',
  );
  t.like(graph, { layers: 5, columns: 2 });
});

test('a single step, and a reference to no step, still make a graph', (t) => {
  const graph = stepGraph([step('only', 'wait', {}, 'missing')]);
  t.deepEqual(graph, {
    nodes: [{ id: 'only', name: 'only', type: 'wait', layer: 0, column: 0 }],
    edges: [],
    layers: 1,
    columns: 1,
  });
});
