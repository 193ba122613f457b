// Which stored deliveries svc webhooks replay sends again: a choice over rows, apart from the
// sending (DeliveryService.replay).
import type { z } from 'zod';
import type { WebhookReplayInput } from '../../../shared/schemas/replay.js';
import { ApiError } from '../../domain/errors.js';
import type { DeliveryRow } from './delivery.repository.js';

export interface ReplayFilter {
  /** Deliveries created in [from, to] (daemon clock, ms). */
  from: number;
  to: number;
  status: 'failed' | 'delivered' | 'all';
  eventType?: string | undefined;
  /** List what would be sent, send nothing. */
  dryRun: boolean;
  /** At most this many events (the oldest first). */
  limit: number;
  /** Answer the list of events, not only the summary. */
  includeDeliveries: boolean;
}

/**
 * The filter of a replay as asked (svc webhooks replay over the control channel, the dashboard's
 * webhook page): the window on the daemon clock (to defaults to now; since_ms is back from now;
 * no from is from the start), refused when it ends before it starts.
 */
export function replayFilter(
  input: Omit<z.infer<typeof WebhookReplayInput>, 'workspace_id' | 'webhook_id'>,
  now: number,
): ReplayFilter {
  const to = input.to === undefined ? now : Date.parse(input.to);
  const from =
    input.since_ms !== undefined
      ? now - input.since_ms
      : input.from === undefined
        ? 0
        : Date.parse(input.from);
  if (from > to) {
    throw new ApiError('invalid_parameter', '--from must be before --to.', { param: 'from' });
  }
  return {
    from,
    to,
    status: input.status,
    eventType: input.event_type,
    dryRun: input.dry_run,
    limit: input.limit,
    includeDeliveries: input.include_deliveries,
  };
}

/** Deliveries created per transaction; the event loop is let go between batches. */
export const REPLAY_BATCH = 500;
/** Deliveries read from the window per page, the event loop let go between pages. */
export const REPLAY_READ_PAGE = 2000;

/**
 * The latest delivery of each event among `rows` (a webhook's deliveries in the window, oldest
 * first) that the filter takes. An event counts once, judged by its latest delivery: `failed`
 * takes the events whose last delivery failed (not those a later replay delivered); `all`
 * takes every finished one (a pending delivery is still on its way).
 */
export function chooseReplays(rows: Iterable<DeliveryRow>, filter: ReplayFilter): DeliveryRow[] {
  const latest = new Map<string, DeliveryRow>();
  for (const row of rows) latest.set(row.event_id, row);
  return [...latest.values()].filter(
    (row) =>
      (filter.status === 'all' ? row.status !== 'pending' : row.status === filter.status) &&
      (filter.eventType === undefined || row.event_type === filter.eventType),
  );
}
