// The registry of step types: one module each. A new type is a module in this folder, its line
// here, and its config fields in shared/schemas/steps.ts (STEP_TYPES, STEP_FIELDS).
import type { StepType, TypedStep } from '../../../shared/schemas/steps.js';
import { agentAction } from './agent-action.js';
import { condition } from './condition.js';
import type { StepKind } from './kind.js';
import { parallel } from './parallel.js';
import { wait } from './wait.js';
import { webhook } from './webhook.js';

export const STEP_KINDS: { [T in StepType]: StepKind<T> } = {
  agent_action: agentAction,
  condition,
  parallel,
  wait,
  webhook,
};

/**
 * The module of a step's type. Its functions take a step of that type; the caller passes the
 * step it looked the module up by (TypeScript cannot tie a union's member to its own module).
 */
export function kindOf(step: TypedStep): StepKind<StepType> {
  return STEP_KINDS[step.type] as StepKind<StepType>;
}
