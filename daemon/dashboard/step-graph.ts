// A workflow's steps as a graph the dashboard draws: each step placed on a row (its layer) and a
// column, and every edge with its kind (next, a condition's if_true / if_false, a parallel step's
// branches, on_error). The edges come from stepEdges() of the step registry, the same source
// successors() reads for every other graph walk; this file only places what it is given.
import { stepEdges } from '../../shared/schemas/steps.js';
import type { WorkflowStepView } from '../../shared/schemas/workflows.js';
import type { StepGraph } from './answers.js';
import { laneOf } from './lanes.js';

type GraphEdge = StepGraph['edges'][number];

export function stepGraph(steps: readonly WorkflowStepView[]): StepGraph {
  const known = new Set(steps.map((step) => step.id));
  const edges: GraphEdge[] = steps.flatMap((step) =>
    stepEdges(step)
      .filter((edge) => known.has(edge.to))
      .map((edge) => ({ from: step.id, to: edge.to, kind: edge.kind })),
  );
  const layerOf = layers(steps, [...edges, ...afterJoins(steps)]);
  const rows: string[][] = [];
  for (const step of steps) (rows[layerOf.get(step.id)!] ??= []).push(step.id);
  const columnOf = new Map<string, number>();
  const parents = new Map<string, string[]>();
  for (const edge of edges) parents.set(edge.to, [...(parents.get(edge.to) ?? []), edge.from]);
  // Each row ordered by where the steps leading to it stand (fewer crossings), ties in the
  // order the workflow lists its steps.
  for (const row of rows) {
    if (!row) continue;
    const weight = (id: string) => {
      const placed = (parents.get(id) ?? []).filter((parent) => columnOf.has(parent));
      if (placed.length === 0) return Number.POSITIVE_INFINITY;
      return placed.reduce((sum, parent) => sum + columnOf.get(parent)!, 0) / placed.length;
    };
    const order = row
      .map((id, index) => ({ id, index, weight: weight(id) }))
      .sort((a, b) => a.weight - b.weight || a.index - b.index);
    order.forEach((entry, column) => columnOf.set(entry.id, column));
  }
  return {
    nodes: steps.map((step) => ({
      id: step.id,
      name: step.name,
      type: step.type,
      layer: layerOf.get(step.id)!,
      column: columnOf.get(step.id)!,
    })),
    edges,
    layers: rows.length,
    columns: Math.max(0, ...rows.map((row) => row?.length ?? 0)),
  };
}

/**
 * What follows a parallel step's join runs after all of its branches: for the rows only (not
 * drawn), an edge from every step of the branches to it. The branches' steps are those of the
 * parallel step's lanes (lanes.ts), nested ones included, so no other walk is needed.
 */
function afterJoins(steps: readonly WorkflowStepView[]): GraphEdge[] {
  const lanes = laneOf(steps);
  return steps.flatMap((step) => {
    if (step.type !== 'parallel' || !step.next_step_id) return [];
    // A branch lane's key ends in "<parallel step id>.<n>"; nested lanes add to it.
    const own = (key: string) =>
      key
        .split('/')
        .some(
          (part) => /^\d+$/.test(part.slice(step.id.length + 1)) && part.startsWith(`${step.id}.`),
        );
    const inBranches = lanes.filter((lane) => own(lane.key)).flatMap((lane) => lane.step_ids);
    return inBranches.map((from) => ({ from, to: step.next_step_id!, kind: 'next' as const }));
  });
}

/**
 * The row of each step: the longest path to it from a step nothing leads to (the entry), so that
 * every edge points down. Steps are taken in topological order (Kahn) over the given edges; the
 * graph has no cycle (validated on create and update), and a step left over is put last.
 */
function layers(steps: readonly WorkflowStepView[], edges: readonly GraphEdge[]) {
  const incoming = new Map(steps.map((step) => [step.id, 0]));
  for (const edge of edges) incoming.set(edge.to, incoming.get(edge.to)! + 1);
  const layer = new Map<string, number>();
  const ready = steps.filter((step) => incoming.get(step.id) === 0).map((step) => step.id);
  for (const id of ready) layer.set(id, 0);
  while (ready.length > 0) {
    const id = ready.shift()!;
    for (const edge of edges) {
      if (edge.from !== id) continue;
      layer.set(edge.to, Math.max(layer.get(edge.to) ?? 0, layer.get(id)! + 1));
      const left = incoming.get(edge.to)! - 1;
      incoming.set(edge.to, left);
      if (left === 0) ready.push(edge.to);
    }
  }
  const deepest = Math.max(-1, ...layer.values());
  for (const step of steps) if (!layer.has(step.id)) layer.set(step.id, deepest + 1);
  return layer;
}
