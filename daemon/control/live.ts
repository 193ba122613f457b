// Live streams of the control channel (svc listen, svc events tail, svc workflows run --wait):
// what a service emits, as it happens, bounded in number.
import { on, type EventEmitter } from 'node:events';
import { TRPCError } from '@trpc/server';
import { ApiError } from '../domain/errors.js';

/**
 * Yields what a service emits under `name`, as it happens (events.on queues what arrives while
 * the client reads), until the client goes away.
 */
export function live<Events extends Record<K, [unknown]>, K extends string>(
  emitter: EventEmitter<Events>,
  name: K,
  accept: (item: Events[K][0]) => boolean,
  signal: AbortSignal | undefined,
): AsyncGenerator<Events[K][0]> {
  // Listening starts here, when the subscription is set up, not at the first read: tRPC tells
  // the client the stream has started before it reads, and what is published in between would
  // otherwise be missed (svc workflows run --wait subscribes, then starts the run).
  const items = on(emitter as EventEmitter, name, { signal });
  return (async function* () {
    if (openLiveStreams >= MAX_LIVE_STREAMS) {
      items.return?.(undefined).catch(() => undefined);
      const cause = new ApiError(
        'rate_limit_exceeded',
        `${MAX_LIVE_STREAMS} live streams are open on the control channel, the most it serves at once. Close one (svc listen, svc events tail, svc workflows run --wait) and try again.`,
      );
      throw new TRPCError({ code: 'TOO_MANY_REQUESTS', message: cause.message, cause });
    }
    openLiveStreams += 1;
    try {
      for await (const [item] of items) {
        if (accept(item as Events[K][0])) yield item as Events[K][0];
      }
    } catch (error) {
      // A client that goes away aborts the signal, which ends events.on with an AbortError.
      if (!signal?.aborted) throw error;
    } finally {
      openLiveStreams -= 1;
    }
  })();
}

/**
 * Live streams (events, deliveries) open at once on the control channel. Its one credential is
 * the control token, so this is the per-credential bound: each stream holds a listener and a
 * queue of what it has not yet sent.
 */
const MAX_LIVE_STREAMS = 32;
let openLiveStreams = 0;
