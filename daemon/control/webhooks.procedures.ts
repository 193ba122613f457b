// svc webhooks replay|tail: stored events sent again as new deliveries, and every delivery
// attempt as it happens.
import { DeliveryStreamInput } from '../../shared/schemas/control.js';
import {
  asyncIterableOf,
  DeliveryActivity,
  WebhookReplayResult,
} from '../../shared/schemas/control-output.js';
import { WebhookReplayInput } from '../../shared/schemas/replay.js';
import { replayFilter } from '../webhooks/deliveries/replay.js';
import type { ControlDeps } from './deps.js';
import { live } from './live.js';
import { operator, t } from './procedure.js';

export function webhookProcedures({ deliveries, workspaces, clock, hooks }: ControlDeps) {
  return {
    webhooks: t.router({
      /** svc webhooks replay: stored events sent again as new deliveries. */
      replay: operator
        .input(WebhookReplayInput)
        .output(WebhookReplayResult)
        .mutation(({ input }) =>
          deliveries.replay(
            workspaces.existingId(input.workspace_id),
            input.webhook_id,
            replayFilter(input, clock.now()),
          ),
        ),
    }),
    deliveries: t.router({
      /** Every delivery attempt as it happens (svc webhooks tail). */
      stream: operator
        .input(DeliveryStreamInput)
        .output(asyncIterableOf(DeliveryActivity))
        .subscription(({ input, signal }) => {
          const filter = input ?? {};
          return live(
            hooks,
            'deliveryAttempted',
            (activity) =>
              (!filter.workspace_id || activity.workspace_id === filter.workspace_id) &&
              (!filter.webhook_id || activity.webhook_id === filter.webhook_id),
            signal,
          );
        }),
    }),
  };
}
