// The bounds of the sandbox's fault rules and agent stubs as plain constants, without zod: the
// schemas (faults.ts, agents.ts) build on them, and the CLI checks its flags against them before
// it calls, so that a refusal names the flag and its range in the flag's own terms.

/** An inclusive range of integers. */
export interface Range {
  min: number;
  max: number;
}

export const FAULT_ATTEMPTS: Range = { min: 1, max: 1000 };
export const FAULT_SEED: Range = { min: 0, max: 2 ** 31 - 1 };
export const FAULT_TIMES: Range = { min: 1, max: 1_000_000 };
/** The HTTP statuses a fault may answer with. */
export const FAULT_STATUS: Range = { min: 100, max: 599 };
/** A fault's added latency and a stub's delay, in ms: up to a day. */
export const DELAY_MS: Range = { min: 1, max: 86_400_000 };
/** A fault's or a stub's `match` (text or /regex/), in characters. */
export const MAX_MATCH_LENGTH = 500;
