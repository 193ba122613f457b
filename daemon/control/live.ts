// Live streams of the control channel (svc listen, svc events tail, svc workflows run --wait):
// what a hook tells (domain/hooks.ts), as it happens, bounded in number.
import { EventEmitter, on } from 'node:events';
import { TRPCError } from '@trpc/server';
import { ApiError } from '../domain/errors.js';
import type { HookName, Hooks, HookSignatures } from '../domain/hooks.js';

/** The one argument of a hook's listener (the item a live stream yields). */
type Told<K extends HookName> = Parameters<HookSignatures[K]>[0];

/**
 * Yields what hook `name` tells, as it happens (events.on queues what arrives while the client
 * reads), until the client goes away; its listener is removed then.
 */
export function live<K extends 'eventPublished' | 'deliveryAttempted'>(
  hooks: Pick<Hooks, 'add'>,
  name: K,
  accept: (item: Told<K>) => boolean,
  signal: AbortSignal | undefined,
): AsyncGenerator<Told<K>> {
  // Listening starts here, when the subscription is set up, not at the first read: tRPC tells
  // the client the stream has started before it reads, and what is published in between would
  // otherwise be missed (svc workflows run --wait subscribes, then starts the run). The queue
  // is events.on's, over an emitter of this stream's own.
  const queue = new EventEmitter<{ item: [Told<K>] }>();
  const items = on(queue as EventEmitter, 'item', { signal });
  const stop = hooks.add(name, ((item: Told<K>) => {
    if (accept(item)) queue.emit('item', item);
  }) as HookSignatures[K]);
  // Removed when the client goes away, even if the stream was never read.
  signal?.addEventListener('abort', stop, { once: true });
  return (async function* () {
    if (openLiveStreams >= MAX_LIVE_STREAMS) {
      stop();
      items.return?.(undefined).catch(() => undefined);
      const cause = new ApiError(
        'rate_limit_exceeded',
        `${MAX_LIVE_STREAMS} live streams are open on the control channel, the most it serves at once. Close one (svc listen, svc events tail, svc workflows run --wait) and try again.`,
      );
      throw new TRPCError({ code: 'TOO_MANY_REQUESTS', message: cause.message, cause });
    }
    openLiveStreams += 1;
    try {
      for await (const [item] of items) yield item as Told<K>;
    } catch (error) {
      // A client that goes away aborts the signal, which ends events.on with an AbortError.
      if (!signal?.aborted) throw error;
    } finally {
      stop();
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
