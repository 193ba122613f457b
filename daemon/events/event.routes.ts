// GET /v1/events and /v1/events/{event_id}: the stored event log of the workspace.
import { z } from 'zod';
import { Event, EventListQuery } from '../../shared/schemas/events.js';
import { ApiError } from '../domain/errors.js';
import { listRoute, objectRoute, tenantRoute, type RouteDef } from '../http/route.js';
import type { RestModule } from '../http/rest-module.js';
import type { EventService } from './event.service.js';

const tag = {
  name: 'Events',
  description: 'The stored event log of a workspace (30-day retention).',
};

export const eventModule: RestModule<{ events: EventService }> = {
  tag,
  routes: ({ events }) => eventRoutes(events),
};

const EventParams = z.strictObject({ event_id: z.string() });

export function eventRoutes(events: EventService): RouteDef[] {
  return [
    listRoute({
      method: 'GET',
      path: '/v1/events',
      operationId: 'listEvents',
      summary: 'List events',
      description:
        'Events of the workspace, newest first (events of the same millisecond in no set order), kept 30 days on the daemon clock. Filter with type (exact types or prefixes like agent.*, comma-separated). Needs webhooks:read.',
      tag: tag.name,
      auth: tenantRoute('webhooks:read'),
      query: EventListQuery,
      response: Event,
      handler: ({ query, ctx }) => events.list(ctx.workspace.id, query),
    }),
    objectRoute({
      method: 'GET',
      path: '/v1/events/:event_id',
      operationId: 'getEvent',
      summary: 'Retrieve an event',
      description:
        'One event by id. Events older than 30 days are gone (404 not_found). Needs webhooks:read.',
      tag: tag.name,
      auth: tenantRoute('webhooks:read'),
      params: EventParams,
      errors: ['not_found'],
      response: Event,
      handler: ({ params, ctx }) => {
        const event = events.get(ctx.workspace.id, params.event_id);
        if (!event) {
          throw new ApiError(
            'not_found',
            `No event ${params.event_id} in this workspace (events are kept 30 days).`,
            {
              param: 'event_id',
            },
          );
        }
        return event;
      },
    }),
  ];
}
