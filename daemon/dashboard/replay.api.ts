// Replay a webhook's deliveries over a range from its page: what `svc webhooks replay` does, with
// the same input schema (WebhookReplayInput), the same window rules (replayFilter) and the same
// service (DeliveryService.replay), so the checks and refusals read as the CLI's. The answer lists
// the new deliveries, the first REPLAY_SHOWN of them (a replay may send 100,000).
import { WebhookReplayInput, WebhookReplayResult } from '../../shared/schemas/replay.js';
import type { Clock } from '../time/clock.js';
import { replayFilter } from '../webhooks/deliveries/replay.js';
import { params, route, type ApiKit } from './api-kit.js';
import type { DashboardServices } from './deps.js';

/** New deliveries the page lists after a replay; the webhook's deliveries list has them all. */
export const REPLAY_SHOWN = 100;

const ReplayBody = WebhookReplayInput.omit({
  workspace_id: true,
  webhook_id: true,
  include_deliveries: true,
});

export const replayRoutes = {
  'POST /webhooks/:webhook_id/replay': route(
    ReplayBody,
    WebhookReplayResult.required({ deliveries: true }),
  ),
};

export function replayApi(kit: ApiKit, services: DashboardServices, clock: Clock): void {
  kit.serve(replayRoutes, {
    'POST /webhooks/:webhook_id/replay': async (input, workspaceId, request) => {
      const filter = replayFilter({ ...input, include_deliveries: true }, clock.now());
      const answer = await services.deliveries.replay(
        workspaceId,
        params(request).webhook_id!,
        filter,
      );
      return { ...answer, deliveries: answer.deliveries?.slice(0, REPLAY_SHOWN) ?? [] };
    },
  });
}
