// /v1/integrations: connect, list, get, disconnect (the CRUD routes without update).
import {
  Integration,
  IntegrationConnectBody,
  IntegrationListQuery,
  IntegrationParams,
} from '../../shared/schemas/integrations.js';
import type { RouteDef } from '../http/route.js';
import { resourceRoutes } from '../http/resource-routes.js';
import type { RestModule } from '../http/rest-module.js';
import type { IntegrationService } from './integration.service.js';

const tag = { name: 'Integrations', description: 'External services connected to a workspace.' };

export const integrationModule: RestModule<{ integrations: IntegrationService }> = {
  tag,
  routes: ({ integrations }) => integrationRoutes(integrations),
};

const integration = resourceRoutes({
  tag: tag.name,
  path: '/v1/integrations',
  idParam: 'integration_id',
  name: { singular: 'integration', plural: 'integrations', article: 'an' },
  scopes: { read: 'integrations:read', write: 'integrations:write' },
  notFound: 'not_found',
  item: Integration,
  params: IntegrationParams,
  listQuery: IntegrationListQuery,
  createBody: IntegrationConnectBody,
});

export function integrationRoutes(integrations: IntegrationService): RouteDef[] {
  return [
    integration.list(({ query, ctx }) => integrations.list(ctx.workspace.id, query), {
      summary: 'List connected integrations',
    }),
    integration.create(({ body, ctx }) => integrations.connect(ctx.workspace.id, body), {
      operationId: 'connectIntegration',
      summary: 'Connect an integration',
      description:
        'Emits integration.connected. credentials are stored and never returned (has_credentials tells whether some are set; an empty object {} is stored as none: has_credentials false).',
    }),
    integration.get(({ params, ctx }) => integrations.get(ctx.workspace.id, params.integration_id)),
    integration.delete(
      ({ params, ctx }) => integrations.disconnect(ctx.workspace.id, params.integration_id),
      {
        operationId: 'disconnectIntegration',
        summary: 'Disconnect an integration',
        description: 'Emits integration.disconnected.',
      },
    ),
  ];
}
