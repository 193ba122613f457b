// The API of a run's event history (the run page, like Temporal's): the events the run published,
// in order, each with its webhook deliveries. The event log's and the deliveries' own services
// read them, each through an index of its own (events_by_execution, deliveries_by_event): a
// run's page costs the same with a million events stored.
import { z } from 'zod';
import { Limit } from '../../shared/schemas/common.js';
import { Event } from '../../shared/schemas/events.js';
import { Delivery, type DeliveryView } from '../../shared/schemas/webhooks.js';
import { params, route, type ApiKit } from './api-kit.js';
import type { DashboardServices } from './deps.js';

const HistoryQuery = z.strictObject({
  workspace: z.string().max(100).optional(),
  limit: Limit,
  after: z.string().min(1).max(100).optional(),
});

/** The events of a page when no limit is given: a run's usual whole history. */
const DEFAULT_PAGE = 100;

export const historyRoutes = {
  'GET /runs/:execution_id/events': route(
    HistoryQuery,
    z.object({
      data: z.array(Event.extend({ deliveries: z.array(Delivery) })),
      has_more: z.boolean(),
      next_cursor: z.string().nullable(),
    }),
  ),
};

export function historyApi(kit: ApiKit, services: DashboardServices): void {
  kit.serve(historyRoutes, {
    'GET /runs/:execution_id/events': (input, workspaceId, request) => {
      const executionId = params(request).execution_id!;
      // Not found unless the run is the workspace's.
      services.runs.getById(workspaceId, executionId);
      const page = services.events.ofRun(workspaceId, executionId, {
        after: input.after,
        limit: input.limit ?? DEFAULT_PAGE,
      });
      const byEvent = new Map<string, DeliveryView[]>();
      const ids = page.items.map((event) => event.id);
      for (const delivery of services.deliveries.ofEvents(workspaceId, ids)) {
        byEvent.set(delivery.event_id, [...(byEvent.get(delivery.event_id) ?? []), delivery]);
      }
      return {
        data: page.items.map((event) => ({ ...event, deliveries: byEvent.get(event.id) ?? [] })),
        has_more: page.hasMore,
        next_cursor: page.hasMore ? page.items.at(-1)!.id : null,
      };
    },
  });
}
