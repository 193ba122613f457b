// Waiting on what the daemon says happened, instead of sleeping or polling: the control
// channel's streams (events.stream and deliveries.stream over SSE, as `svc events tail` and
// `svc webhooks tail` read them), opened and confirmed live before the test acts, then waited
// on with a bound that only fails the test.
import type { EventEnvelope } from '../../shared/schemas/events.js';
import type { DeliveryActivity } from '../../shared/schemas/webhooks.js';
import { createControlClient } from '../../cli/control-client.js';
import { control, controlToken, type ControlTarget } from './api.js';
import { HANG_TIMEOUT_MS, Wakeup } from './waiting.js';

export interface Watch<T> {
  /** Every matching item since the watch opened, in the order the daemon sent them. */
  readonly items: T[];
  /**
   * The first item (seen already, or still to come) that matches; rejects naming `what` once
   * `timeoutMs` passes without one. The bound is a failure timeout, never what makes a test pass.
   * `since` skips the items before that index of `items`.
   */
  waitFor(
    predicate: (item: T) => boolean,
    options?: { timeoutMs?: number; what?: string; since?: number },
  ): Promise<T>;
  close(): void;
}

export type EventWatch = Watch<EventEnvelope>;

export interface EventFilter {
  workspace_id?: string;
  /** Exact types or prefixes ending in `*`, as the stream takes them. */
  types?: string[];
}

type Owner = { teardown(fn: () => void): void };

export { HANG_TIMEOUT_MS };
const DEFAULT_TIMEOUT_MS = HANG_TIMEOUT_MS;
const MARKER_TYPE = 'integration.error';

/** One private workspace per daemon for the liveness markers, so no test ever sees them. */
const markerWorkspaces = new Map<string, Promise<string>>();

/**
 * Opens the daemon's event stream and returns once it is live. The SSE "connected" message
 * comes before the daemon listens for events, so liveness is proven by publishing a marker
 * event in a workspace of its own and waiting for it: everything published after this returns
 * is streamed. Needs a sandbox daemon (markers are published with events.trigger).
 */
export async function watchEvents(
  target: ControlTarget,
  filter: EventFilter = {},
  owner?: Owner,
): Promise<EventWatch> {
  const markerWs = await markerWorkspace(target);
  const markers = new Set<string>();
  const client = createControlClient(target.url, controlToken(target));
  const watch = openWatch<EventEnvelope>(
    (handlers) => client.events.stream.subscribe(undefined, handlers),
    (event) => {
      if (event.workspace_id !== markerWs) return matches(event, filter);
      markers.add(String(event.data.marker));
      return false;
    },
    owner,
  );

  // Markers go out until one comes back (the first may precede the daemon's listener); each
  // wait is bounded so a stream that never opens fails the test instead of hanging it.
  const sent: string[] = [];
  for (let attempt = 1; ; attempt++) {
    const marker = `${Date.now()}-${attempt}-${Math.random().toString(36).slice(2)}`;
    sent.push(marker);
    await control(target, 'events.trigger', {
      type: MARKER_TYPE,
      workspace_id: markerWs,
      data: { marker },
    });
    try {
      await watch.until(() => sent.some((one) => markers.has(one)), 250, 'marker');
      return watch;
    } catch (error) {
      if (attempt === 40) {
        watch.close();
        throw new Error(`the event stream never went live: ${String(error)}`);
      }
    }
  }
}

/**
 * Opens the stream of webhook delivery attempts (what `svc webhooks tail` shows). It works on
 * a production daemon too, where no marker can be published: it counts as live once the SSE
 * stream said "connected" and a control call made after that has been answered (the daemon
 * starts listening right after it sends "connected", without waiting for anything). Prefer
 * watchEvents where the daemon is a sandbox.
 */
export async function watchDeliveries(
  target: ControlTarget,
  filter: { workspace_id?: string; webhook_id?: string } = {},
  owner?: Owner,
): Promise<Watch<DeliveryActivity>> {
  const client = createControlClient(target.url, controlToken(target));
  let started = false;
  const watch = openWatch<DeliveryActivity>(
    (handlers) =>
      client.deliveries.stream.subscribe(filter, {
        ...handlers,
        onStarted() {
          started = true;
          handlers.onStarted();
        },
      }),
    () => true,
    owner,
  );
  await watch.until(() => started, 10_000, 'start of the delivery stream');
  await client.clock.show.query();
  return watch;
}

interface Handlers<T> {
  onData(item: T): void;
  onError(error: unknown): void;
  onStarted(): void;
}

/** A subscription whose items are kept, and waits that wake on each of them. */
function openWatch<T>(
  subscribe: (handlers: Handlers<T>) => { unsubscribe(): void },
  keep: (item: T) => boolean,
  owner: Owner | undefined,
): Watch<T> & { until(check: () => boolean, timeoutMs: number, what: string): Promise<void> } {
  const items: T[] = [];
  const news = new Wakeup();
  let failure: Error | undefined;
  const wakeAll = () => news.wake();
  const subscription = subscribe({
    onData(item) {
      if (keep(item)) items.push(item);
      wakeAll();
    },
    onError(error) {
      failure = new Error(`stream failed: ${String(error)}`);
      wakeAll();
    },
    onStarted: wakeAll,
  });
  owner?.teardown(() => subscription.unsubscribe());

  const until = async (check: () => boolean, timeoutMs: number, what: string) => {
    const held = await news.until(() => failure !== undefined || check(), timeoutMs);
    if (failure) throw failure;
    if (!held) throw new Error(`no ${what} within ${timeoutMs} ms`);
  };

  return {
    items,
    until,
    async waitFor(predicate, options = {}) {
      const since = options.since ?? 0;
      let found: T | undefined;
      await until(
        () => (found = items.slice(since).find(predicate)) !== undefined,
        options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        options.what ?? 'matching item',
      );
      return found!;
    },
    close() {
      subscription.unsubscribe();
      wakeAll();
    },
  };
}

function matches(event: EventEnvelope, filter: EventFilter): boolean {
  if (filter.workspace_id && event.workspace_id !== filter.workspace_id) return false;
  if (!filter.types?.length) return true;
  return filter.types.some((type) =>
    type.endsWith('*') ? event.type.startsWith(type.slice(0, -1)) : event.type === type,
  );
}

function markerWorkspace(target: ControlTarget): Promise<string> {
  let ws = markerWorkspaces.get(target.url);
  if (!ws) {
    ws = control<{ id: string }>(target, 'workspaces.create', {
      name: 'Event watch markers',
      tier: 'enterprise',
    }).then((created) => created.id);
    markerWorkspaces.set(target.url, ws);
  }
  return ws;
}

/**
 * Runs every timer of the daemon that is due now and returns once they have all run (the
 * clock moves by 0 ms; a move answers after its due timers, see clock.service.ts). A barrier
 * for "the daemon has done what it had to do by now", e.g. before asserting a retry is not due.
 */
export async function dueTimersRun(target: ControlTarget): Promise<void> {
  await control(target, 'clock.advance', { ms: 0 });
}

/**
 * Reads something (an execution, a delivery) until `done` holds: the watch is live before the
 * first read, and each later read follows an event that `relevant` accepts, so no change
 * between a read and the wait is missed. For states that some event announces.
 */
export async function readUntil<T>(
  target: ControlTarget,
  read: () => Promise<T>,
  done: (value: T) => boolean,
  relevant: (event: EventEnvelope) => boolean,
  options: { filter?: EventFilter; timeoutMs?: number; what?: string } = {},
): Promise<T> {
  const watch = await watchEvents(target, options.filter ?? {});
  try {
    const deadline = Date.now() + (options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    for (;;) {
      const seen = watch.items.length;
      const value = await read();
      if (done(value)) return value;
      try {
        await watch.waitFor(relevant, {
          since: seen,
          timeoutMs: Math.max(0, deadline - Date.now()),
          what: options.what ?? 'event',
        });
      } catch (error) {
        throw new Error(`${String(error)}; last read: ${JSON.stringify(value)}`);
      }
    }
  } finally {
    watch.close();
  }
}
