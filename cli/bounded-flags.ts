// Flags whose values the daemon bounds (fault rules, agent stubs): checked here against the same
// constants the daemon's schemas use, so that an out-of-range value is refused with one sentence
// naming the flag and its range in the flag's own terms (a duration, not milliseconds), before
// any call.
import { formatDuration, parseDuration } from '../shared/duration.js';
import { DELAY_MS, MAX_MATCH_LENGTH, type Range } from '../shared/schemas/sandbox-limits.js';
import { UsageError } from './errors.js';

/** An integer flag within its range (`what` names it: an integer, an HTTP status...). */
export function integerOption(
  text: string | undefined,
  flag: string,
  range: Range,
  what = 'an integer',
): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (text.trim() === '' || !Number.isInteger(value) || value < range.min || value > range.max) {
    throw new UsageError(`${flag} takes ${what} from ${range.min} to ${range.max}; got "${text}".`);
  }
  return value;
}

/** A duration flag (--latency, --delay) within DELAY_MS, in ms. */
export function delayOption(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined;
  const ms = parseDuration(text);
  if (ms === null || ms < DELAY_MS.min || ms > DELAY_MS.max) {
    throw new UsageError(
      `${flag} takes a duration from ${formatDuration(DELAY_MS.min)} to ${formatDuration(DELAY_MS.max)}, such as 500ms, 2s or 1m; got "${text}".`,
    );
  }
  return ms;
}

/** A --match (text or /regex/) of at most MAX_MATCH_LENGTH characters. */
export function matchOption(text: string | undefined): string | undefined {
  if (text !== undefined && text.length > MAX_MATCH_LENGTH) {
    throw new UsageError(
      `--match takes at most ${MAX_MATCH_LENGTH} characters; this one has ${text.length}.`,
    );
  }
  return text;
}

/** --timeout of run, trigger and rerun --wait: how long to follow the run at most (real time). */
export const FOLLOW_TIMEOUT_OPTION = {
  flags: '--timeout <duration>',
  description:
    'with --wait: give up following after this long (real time, e.g. 2m; exit 1, the run goes on); default: until the run ends or parks',
} as const;

export function followTimeoutMs(text: string | undefined, wait: boolean): number | undefined {
  if (text === undefined) return undefined;
  if (!wait) throw new UsageError('--timeout goes with --wait (how long to follow the run).');
  const ms = parseDuration(text);
  if (ms === null || ms < 1)
    throw new UsageError(`--timeout takes a duration such as 30s, 5m or 1h; got "${text}".`);
  return ms;
}
