// Which lane of a run's timeline each step belongs to: the main lane from the entry step, and
// one lane per branch of a parallel step (nested branches get their own). Conditions, error
// handlers and what follows a parallel step's join stay on the lane that reached them.
import { stepEdges, type StepEdgeKind } from '../../shared/schemas/steps.js';
import type { WorkflowStepView } from '../../shared/schemas/workflows.js';
import type { Lane } from './answers.js';

/** Branches first (each opens its lane), then the edges that stay on the lane. */
const LANE_ORDER: Record<StepEdgeKind, number> = {
  branch: 0,
  if_true: 1,
  if_false: 2,
  on_error: 3,
  next: 4,
};

export function laneOf(steps: readonly WorkflowStepView[]): Lane[] {
  const byId = new Map(steps.map((step) => [step.id, step]));
  const lanes = new Map<string, Lane>();
  const seen = new Set<string>();
  const visit = (stepId: string | null | undefined, lane: Lane) => {
    if (!stepId || seen.has(stepId)) return;
    const step = byId.get(stepId);
    if (!step) return;
    seen.add(stepId);
    lane.step_ids.push(stepId);
    const edges = stepEdges(step).sort((a, b) => LANE_ORDER[a.kind] - LANE_ORDER[b.kind]);
    let branches = 0;
    for (const edge of edges) {
      if (edge.kind !== 'branch') {
        visit(edge.to, lane);
        continue;
      }
      branches += 1;
      const key = `${lane.key}/${step.id}.${branches}`;
      const branch: Lane = { key, label: `${step.name} · branch ${branches}`, step_ids: [] };
      lanes.set(key, branch);
      visit(edge.to, branch);
    }
  };
  const main: Lane = { key: 'main', label: 'Main', step_ids: [] };
  lanes.set(main.key, main);
  visit(steps[0]?.id, main);
  // Steps no path reaches (there should be none) still get shown.
  for (const step of steps) if (!seen.has(step.id)) visit(step.id, main);
  return [...lanes.values()];
}
