// Sandbox fault rules (svc faults add|list|remove|clear): control-channel inputs and the rule as
// the CLI shows it. Not part of the REST API (like the clock, faults are a sandbox control).
import { z } from 'zod';
import { Timestamp } from './common.js';
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
export const FaultView = z.object({
  id: z.string(),
  workspace_id: z.string(),
  where: z.object({
    webhook_id: z.string().nullable(),
    url_prefix: z.string().nullable(),
    workflow_id: z.string().nullable(),
    step_id: z.string().nullable(),
    agent_id: z.string().nullable(),
  }),
  when: z.object({
    attempts: z.object({ from: z.number().int(), to: z.number().int() }).nullable(),
    rate: z.number().nullable(),
    seed: z.number().nullable(),
    times: z.number().int().nullable(),
    match: z.string().nullable(),
  }),
  what: z.object({
    status: z.number().int().nullable(),
    timeout: z.boolean(),
    latency_ms: z.number().int().nullable(),
    reset: z.boolean(),
    fail: z.string().nullable(),
  }),
  /** Calls the rule was asked about (past its where, match and attempts). */
  seen: z.number().int(),
  /** Faults it injected. */
  hits: z.number().int(),
  /** A rule with --times retires after that many hits. */
  retired: z.boolean(),
  created_at: Timestamp,
});
export type FaultView = z.infer<typeof FaultView>;
