// How the CLI says when something that waits goes on (a wait step, a retry's backoff, a
// schedule's next run): the time on the sandbox clock, how far off it is in words, and the
// `svc clock advance` that skips there. Without it a user sat 15 real minutes on a wait step
// (issue 41). The times come from the API (wakes_at, next_run_at); "now" is the daemon's clock,
// read over the control channel, since the sandbox clock may be far from the machine's.
import { formatDuration } from '../shared/duration.js';
import type { ClockState } from '../shared/schemas/control-output.js';
import type { CliContext } from './context.js';

/** The daemon clock's reading at the machine's `realNow`, from a state read a moment before. */
export function sandboxNow(state: ClockState, realNow = Date.now()): number {
  return state.frozen ? Date.parse(state.now) : realNow + state.offset_ms;
}

/** The daemon's clock, or undefined when the control channel cannot be reached (no token). */
export async function readClock(ctx: CliContext): Promise<ClockState | undefined> {
  try {
    return await (await ctx.control()).clock.show.query();
  } catch {
    return undefined;
  }
}

/** How long until `iso` from `now`, rounded up to the second (0 when it is due). */
function remainingMs(iso: string, now: number): number {
  return Math.max(0, Math.ceil((Date.parse(iso) - now) / 1000) * 1000);
}

/** An ISO time as the CLI prints a sandbox time: 2026-01-05 09:15:00 (UTC, to the second). */
export function clockTime(iso: string): string {
  return iso.slice(0, 19).replace('T', ' ');
}

/**
 * "2026-01-05 09:15:00 (in 15m, sandbox clock)"; "(due now, ...)" once it is due; without the
 * distance when the clock could not be read.
 */
export function whenText(iso: string, now: number | undefined): string {
  if (now === undefined) return `${clockTime(iso)} (sandbox clock)`;
  const ms = remainingMs(iso, now);
  return `${clockTime(iso)} (${ms === 0 ? 'due now' : `in ${formatDuration(ms)}`}, sandbox clock)`;
}

/**
 * The argument of `svc clock advance` that reaches `iso`: whole seconds, rounded up, in the
 * largest unit that says them exactly (15m, 1h, 90s), as parseDuration reads them back.
 */
export function advanceArgument(ms: number): string {
  const seconds = Math.max(1, Math.ceil(ms / 1000));
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3_600],
    ['m', 60],
  ] as const) {
    if (seconds % size === 0) return `${seconds / size}${unit}`;
  }
  return `${seconds}s`;
}

/** "svc clock advance 15m", or undefined when it is due already or the clock is unknown. */
export function skipCommand(iso: string, now: number | undefined): string | undefined {
  if (now === undefined) return undefined;
  const ms = remainingMs(iso, now);
  return ms === 0 ? undefined : `svc clock advance ${advanceArgument(ms)}`;
}

/** The command that decides an approval a run waits on, by the agent execution's id alone. */
export function decideCommand(agentExecutionId: string): string {
  return `svc approvals approve|reject ${agentExecutionId}`;
}
