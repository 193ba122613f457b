// Sandbox fault rules (svc faults add|list|remove|clear): control-channel inputs and the rule as
// the CLI shows it. Not part of the REST API (like the clock, faults are a sandbox control).
import { z } from 'zod';
import {
  DELAY_MS,
  FAULT_ATTEMPTS,
  FAULT_SEED,
  FAULT_STATUS,
  FAULT_TIMES,
  MAX_MATCH_LENGTH,
  type Range,
} from './sandbox-limits.js';

const Id = (prefix: string) =>
  z
    .string()
    .max(100)
    .refine((value) => value.startsWith(prefix), `must start with ${prefix}`);

const within = (range: Range) => z.number().int().min(range.min).max(range.max);

export const FaultAddInput = z.strictObject({
  workspace_id: z.string().optional(),
  // where
  webhook_id: Id('hook_').optional(),
  url_prefix: z.string().min(1).max(2000).optional(),
  workflow_id: Id('wfl_').optional(),
  step_id: z.string().min(1).max(64).optional(),
  agent_id: Id('agt_').optional(),
  // when
  attempts_from: within(FAULT_ATTEMPTS).optional(),
  attempts_to: within(FAULT_ATTEMPTS).optional(),
  rate: z.number().min(0).max(1).optional(),
  seed: within(FAULT_SEED).optional(),
  times: within(FAULT_TIMES).optional(),
  match: z.string().min(1).max(MAX_MATCH_LENGTH).optional(),
  // what
  status: within(FAULT_STATUS).optional(),
  timeout: z.boolean().optional(),
  latency_ms: within(DELAY_MS).optional(),
  reset: z.boolean().optional(),
  fail: z.string().min(1).max(100).optional(),
});

export type FaultAdd = z.infer<typeof FaultAddInput>;

export const FaultIdInput = z.strictObject({
  workspace_id: z.string().optional(),
  id: Id('flt_'),
});

export const FaultListInput = z.strictObject({ workspace_id: z.string().optional() }).optional();

/** A rule as listed: what it targets, when and what it injects, and how often it did. */
export interface FaultView {
  id: string;
  workspace_id: string;
  where: {
    webhook_id: string | null;
    url_prefix: string | null;
    workflow_id: string | null;
    step_id: string | null;
    agent_id: string | null;
  };
  when: {
    attempts: { from: number; to: number } | null;
    rate: number | null;
    seed: number | null;
    times: number | null;
    match: string | null;
  };
  what: {
    status: number | null;
    timeout: boolean;
    latency_ms: number | null;
    reset: boolean;
    fail: string | null;
  };
  /** Calls the rule was asked about (past its where, match and attempts). */
  seen: number;
  /** Faults it injected. */
  hits: number;
  /** A rule with --times retires after that many hits. */
  retired: boolean;
  created_at: string;
}
