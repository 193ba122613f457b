// /v1/integrations: connect, list, get, disconnect.
import { DeletedObject } from '../../shared/schemas/common.js';
import {
  Integration,
  IntegrationConnectBody,
  IntegrationListQuery,
  IntegrationParams,
} from '../../shared/schemas/integrations.js';
import { listRoute, objectRoute, type RouteDef } from '../http/route.js';
import type { IntegrationService } from './integration.service.js';

const read = { kind: 'credential', scope: 'integrations:read', tenant: true } as const;
const write = { kind: 'credential', scope: 'integrations:write', tenant: true } as const;
const tag = 'Integrations';

export function integrationRoutes(integrations: IntegrationService): RouteDef[] {
  return [
    listRoute({
      method: 'GET',
      path: '/v1/integrations',
      operationId: 'listIntegrations',
      summary: 'List connected integrations',
      tag,
      auth: read,
      query: IntegrationListQuery,
      response: Integration,
      handler: ({ query, ctx }) => integrations.list(ctx.workspace.id, query),
    }),
    objectRoute({
      method: 'POST',
      path: '/v1/integrations',
      operationId: 'connectIntegration',
      summary: 'Connect an integration',
      description:
        'Emits integration.connected. credentials are stored and never returned (has_credentials tells whether some are set).',
      tag,
      auth: write,
      status: 201,
      body: IntegrationConnectBody,
      response: Integration,
      handler: ({ body, ctx }) => integrations.connect(ctx.workspace.id, body),
    }),
    objectRoute({
      method: 'GET',
      path: '/v1/integrations/:integration_id',
      operationId: 'getIntegration',
      summary: 'Retrieve an integration',
      tag,
      auth: read,
      params: IntegrationParams,
      errors: ['not_found'],
      response: Integration,
      handler: ({ params, ctx }) => integrations.get(ctx.workspace.id, params.integration_id),
    }),
    objectRoute({
      method: 'DELETE',
      path: '/v1/integrations/:integration_id',
      operationId: 'disconnectIntegration',
      summary: 'Disconnect an integration',
      description: 'Emits integration.disconnected.',
      tag,
      auth: write,
      params: IntegrationParams,
      errors: ['not_found'],
      response: DeletedObject,
      handler: ({ params, ctx }) =>
        integrations.disconnect(ctx.workspace.id, params.integration_id),
    }),
  ];
}
