// Cron arithmetic on the daemon clock: when does an expression next match after a given instant,
// in a given time zone. cron-parser computes this from any instant we hand it; node-cron only
// schedules real-time callbacks from the machine's own clock (see the README, Triggers).
import { CronExpressionParser } from 'cron-parser';
import { ApiError } from '../domain/errors.js';

export interface CronSchedule {
  cron: string;
  timezone: string;
}

/** Checks a schedule; the ApiError names the faulty field (trigger.config.cron or .timezone). */
export function checkSchedule(schedule: CronSchedule): void {
  if (!isTimeZone(schedule.timezone)) {
    throw new ApiError(
      'invalid_parameter',
      `Unknown time zone '${schedule.timezone}'. Use an IANA name such as UTC, Europe/Paris or America/New_York.`,
      { param: 'trigger.config.timezone' },
    );
  }
  const fields = schedule.cron.trim().split(/\s+/);
  try {
    if (!schedule.cron.trim().startsWith('@') && (fields.length < 5 || fields.length > 6))
      throw new Error(`it has ${fields.length} fields`);
    CronExpressionParser.parse(schedule.cron, { tz: schedule.timezone, strict: false }).next();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ApiError(
      'invalid_parameter',
      `Invalid cron expression '${schedule.cron}' (${reason}). Use 5 fields, minute hour day-of-month month day-of-week, e.g. "0 8 * * 1-5", or @hourly/@daily.`,
      { param: 'trigger.config.cron' },
    );
  }
}

/** The first match strictly after `afterMs`. */
export function nextOccurrence(schedule: CronSchedule, afterMs: number): number {
  return CronExpressionParser.parse(schedule.cron, {
    tz: schedule.timezone,
    currentDate: afterMs,
  })
    .next()
    .getTime();
}

/** The last match at or before `atMs` (undefined when there is none, e.g. a past-only date). */
export function latestOccurrence(schedule: CronSchedule, atMs: number): number | undefined {
  try {
    // prev() looks strictly before its start: start one millisecond later to include atMs.
    return CronExpressionParser.parse(schedule.cron, {
      tz: schedule.timezone,
      currentDate: atMs + 1,
    })
      .prev()
      .getTime();
  } catch {
    return undefined;
  }
}

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
