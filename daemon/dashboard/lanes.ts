// Which lane of a run's timeline each step belongs to: the main lane from the entry step, and
// one lane per branch of a parallel step (nested branches get their own). Conditions, error
// handlers and what follows a parallel step's join stay on the lane that reached them.
import type { WorkflowStepView } from '../../shared/schemas/workflows.js';

export interface Lane {
  key: string;
  label: string;
  step_ids: string[];
}

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
    if (step.type === 'parallel') {
      const children = Array.isArray(step.config.steps) ? (step.config.steps as unknown[]) : [];
      children.forEach((child, index) => {
        const key = `${lane.key}/${step.id}.${index + 1}`;
        const branch: Lane = { key, label: `${step.name} · branch ${index + 1}`, step_ids: [] };
        lanes.set(key, branch);
        visit(typeof child === 'string' ? child : null, branch);
      });
    }
    if (step.type === 'condition') {
      visit(stringOf(step.config.if_true), lane);
      visit(stringOf(step.config.if_false), lane);
    }
    visit(step.on_error, lane);
    visit(step.next_step_id, lane);
  };
  const main: Lane = { key: 'main', label: 'Main', step_ids: [] };
  lanes.set(main.key, main);
  visit(steps[0]?.id, main);
  // Steps no path reaches (there should be none) still get shown.
  for (const step of steps) if (!seen.has(step.id)) visit(step.id, main);
  return [...lanes.values()];
}

function stringOf(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}
