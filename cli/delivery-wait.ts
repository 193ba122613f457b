// Waits until new deliveries have had their attempt (svc webhooks replay --wait), so that a CI
// script reads the outcome instead of sleeping. The control channel's delivery stream says when
// an attempt ended (no polling delay); a slow poll of the REST API covers a stream that could not
// be opened and sees a webhook that stopped (its deliveries are then held: no attempt will come
// until it is resumed, so waiting longer would never end).
import { apiPath } from './api-commands.js';
import type { CliContext } from './context.js';
import { onInterrupt } from './interrupt.js';
import { openLiveStream } from './live-stream.js';
import type { DeliveryActivity, DeliveryView, WebhookView } from '../shared/schemas/webhooks.js';

const POLL_MS = 1_000;
/** Deliveries read per poll: the stream does the work, the poll is the safety net. */
const POLL_BATCH = 25;
/** After this long, say once what is still awaited and how to stop. */
const STILL_WAITING_MS = 5_000;

/**
 * Whether the attempt a delivery was waiting for has ended: it is delivered or failed, or it is
 * pending again with an attempt behind it and the next one scheduled after it, or held (its
 * webhook stopped: no next attempt is scheduled) with an attempt behind it.
 */
export function attemptSettled(delivery: DeliveryView): boolean {
  if (delivery.status !== 'pending') return true;
  if (delivery.attempts < 1 || delivery.last_attempt_at === null) return false;
  if (delivery.held) return true;
  return (
    delivery.next_attempt_at !== null &&
    Date.parse(delivery.next_attempt_at) > Date.parse(delivery.last_attempt_at)
  );
}

export interface SettleOutcome {
  /** Each delivery as it stood when settled (or last seen, for held ones), in the given order. */
  deliveries: DeliveryView[];
  /** Deliveries the stopped webhook holds (no attempt until it is active again). */
  held: string[];
  /** The webhook's status when it stopped (paused or failed); undefined while it is active. */
  webhookStatus: string | undefined;
  /** The user stopped waiting (Ctrl-C); the deliveries go on. */
  interrupted: boolean;
}

export interface DeliveryWatch {
  /** Waits until each delivery's attempt has ended (see attemptSettled). */
  settle(deliveryIds: string[]): Promise<SettleOutcome>;
  close(): void;
}

/** Opens the watch before the deliveries are made, so that no attempt goes unseen. */
export async function watchDeliveries(ctx: CliContext, webhookId: string): Promise<DeliveryWatch> {
  const seen = new Map<string, DeliveryView>();
  let wake: (() => void) | undefined;
  // Set when something came since the last look, so that it is not left for the next poll.
  let dirty = false;
  const subscription = await openStream(ctx, webhookId, (activity) => {
    seen.set(activity.delivery.id, activity.delivery);
    dirty = true;
    wake?.();
  });
  return {
    close: () => subscription?.unsubscribe(),
    async settle(deliveryIds) {
      const api = await ctx.api();
      const waiting = new Set(deliveryIds);
      const last = new Map<string, DeliveryView>();
      const interrupt = onInterrupt(() => wake?.());
      const startedAt = Date.now();
      let toldStillWaiting = false;
      let webhookStatus: string | undefined;
      try {
        while (waiting.size > 0 && !interrupt.interrupted) {
          dirty = false;
          for (const id of waiting) {
            const view = seen.get(id);
            if (view) last.set(id, view);
            if (view && attemptSettled(view)) waiting.delete(id);
          }
          if (waiting.size === 0) break;
          const ticked = await new Promise<boolean>((resolve) => {
            if (dirty) {
              resolve(false);
              return;
            }
            const timer = setTimeout(() => resolve(true), POLL_MS);
            wake = () => {
              clearTimeout(timer);
              resolve(false);
            };
          });
          wake = undefined;
          if (!ticked || interrupt.interrupted) continue;
          for (const id of [...waiting].slice(0, POLL_BATCH)) {
            seen.set(id, await api.data<DeliveryView>('GET', apiPath('deliveries', id)));
          }
          const hook = await api.data<WebhookView>('GET', apiPath('webhooks', webhookId));
          if (hook.status !== 'active') {
            webhookStatus = hook.status;
            // One more look at what the poll just read, then the rest is held.
            for (const id of waiting) {
              const view = seen.get(id);
              if (view) last.set(id, view);
              if (view && attemptSettled(view)) waiting.delete(id);
            }
            break;
          }
          if (!toldStillWaiting && Date.now() - startedAt >= STILL_WAITING_MS) {
            toldStillWaiting = true;
            ctx.out.note(
              `Waiting for the attempts of ${waiting.size} deliver${waiting.size === 1 ? 'y' : 'ies'} (Ctrl-C stops waiting; they go on)...`,
            );
          }
        }
      } finally {
        interrupt.remove();
      }
      return {
        deliveries: deliveryIds.flatMap((id) => {
          const view = last.get(id);
          return view ? [view] : [];
        }),
        held: webhookStatus === undefined ? [] : [...waiting],
        webhookStatus,
        interrupted: interrupt.interrupted,
      };
    },
  };
}

/** The webhook's delivery stream, live; undefined when it cannot be opened (the poll follows). */
function openStream(
  ctx: CliContext,
  webhookId: string,
  onActivity: (activity: DeliveryActivity) => void,
): Promise<{ unsubscribe(): void } | undefined> {
  return openLiveStream<DeliveryActivity>(
    ctx,
    (control, handlers) => control.deliveries.stream.subscribe({ webhook_id: webhookId }, handlers),
    onActivity,
  );
}
