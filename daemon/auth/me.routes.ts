// GET /v1/auth/me: who the credential is, for which workspace, with which scopes.
import { Me } from '../../shared/schemas/auth.js';
import { SCOPES } from '../../shared/scopes.js';
import { objectRoute, type RouteDef } from '../http/route.js';
import type { RestModule } from '../http/rest-module.js';

const tag = { name: 'Auth', description: 'Who a credential is and what it may do.' };

export const meModule: RestModule<unknown> = { tag, routes: () => meRoutes() };

export function meRoutes(): RouteDef[] {
  return [
    objectRoute({
      method: 'GET',
      path: '/v1/auth/me',
      operationId: 'getMe',
      summary: 'Describe the current credential',
      description:
        'Any valid credential may call it. For a credential valid in several workspaces (the CLI operator) X-Tenant-ID picks the workspace; the default workspace otherwise.',
      tag: tag.name,
      auth: { kind: 'credential', scope: null, tenant: false },
      rateLimit: { operation: 'auth.me' },
      response: Me,
      handler: ({ ctx }) => ({
        user_id: ctx.credential.userId,
        workspace_id: ctx.workspace.id,
        scopes: SCOPES.filter((scope) => ctx.credential.scopes.has(scope)),
        tier: ctx.workspace.tier,
        environment: ctx.credential.environment,
        credential_type: ctx.credential.type,
      }),
    }),
  ];
}
