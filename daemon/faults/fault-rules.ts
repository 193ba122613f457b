// How a fault rule decides on one call, as pure functions (unit-tested): does the rule target
// the call (where), does it apply to this call (match, attempts, a seeded share), and has it
// retired (--times). The service keeps the rules and their counters; this only reads them.
import { createHash } from 'node:crypto';
import type { FaultRow } from './fault.repository.js';

/**
 * Where a rule is decided: the outbound HTTP result (deliveries, webhook steps: --status,
 * --timeout, --latency, --reset), the outcome of a workflow step (--fail on --workflow/--step),
 * or the answer of an agent (--agent).
 */
export type FaultPoint = 'http' | 'step' | 'agent';

/** The call a rule is asked about. */
export interface FaultCall {
  point: FaultPoint;
  workspaceId: string;
  /** The outbound URL (http). */
  url?: string | undefined;
  webhookId?: string | undefined;
  workflowId?: string | undefined;
  stepId?: string | undefined;
  agentId?: string | undefined;
  /** The delivery's or the step's attempt (1 for the first); agents count executions instead. */
  attempt?: number | undefined;
  /** What --match reads: the event type of a delivery, the run's input, the agent's input. */
  matchText(): string;
}

export function pointOf(rule: Pick<FaultRow, 'agent_id' | 'fail_code'>): FaultPoint {
  if (rule.agent_id !== null) return 'agent';
  return rule.fail_code !== null ? 'step' : 'http';
}

export function retired(rule: Pick<FaultRow, 'times' | 'hits'>): boolean {
  return rule.times !== null && rule.hits >= rule.times;
}

/** Whether the rule's where names this call. */
export function targets(rule: FaultRow, call: FaultCall): boolean {
  if (rule.workspace_id !== call.workspaceId || pointOf(rule) !== call.point) return false;
  if (rule.agent_id !== null) return rule.agent_id === call.agentId;
  if (rule.workflow_id !== null) {
    return rule.workflow_id === call.workflowId && rule.step_id === call.stepId;
  }
  if (rule.webhook_id !== null) return rule.webhook_id === call.webhookId;
  if (rule.url_prefix !== null)
    return call.url !== undefined && call.url.startsWith(rule.url_prefix);
  return false;
}

export function coversAttempt(
  rule: Pick<FaultRow, 'attempts_from' | 'attempts_to'>,
  attempt: number,
): boolean {
  if (rule.attempts_from === null) return true;
  return attempt >= rule.attempts_from && attempt <= (rule.attempts_to ?? rule.attempts_from);
}

/**
 * A number in [0, 1) fixed by the seed and the call's rank among those the rule has seen: the
 * same sequence of calls draws the same numbers, run after run, whatever the ids and the time.
 */
export function seededDraw(seed: number, rank: number): number {
  const digest = createHash('sha256').update(`${seed}:${rank}`).digest();
  return digest.readUInt32BE(0) / 2 ** 32;
}

/** What one decision changed: whether the rule counted the call, and whether it hits it. */
export interface Decision {
  seen: number;
  hits: number;
  hit: boolean;
}

/**
 * Decides on a call the rule targets. `matches` is the rule's compiled --match (undefined: none).
 * Undefined when the call is not counted (retired, no match, outside --attempts). Deliveries and
 * steps have their own attempt numbers; an agent's attempt is its rank among the executions the
 * rule has seen (the first execution is attempt 1).
 */
export function decide(
  rule: FaultRow,
  call: FaultCall,
  matches: ((text: string) => boolean) | undefined,
): Decision | undefined {
  if (retired(rule)) return undefined;
  if (matches && !matches(call.matchText())) return undefined;
  const attempt = call.point === 'agent' ? rule.seen + 1 : (call.attempt ?? 1);
  if (call.point !== 'agent' && !coversAttempt(rule, attempt)) return undefined;
  const seen = rule.seen + 1;
  let hit = call.point === 'agent' ? coversAttempt(rule, attempt) : true;
  if (hit && rule.rate !== null) hit = seededDraw(rule.seed ?? 0, seen) < rule.rate;
  return { seen, hits: rule.hits + (hit ? 1 : 0), hit };
}
