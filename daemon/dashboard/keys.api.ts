// The API of the Keys page: the workspace's API keys (never their secret), create one (its secret
// shown once, in the answer), revoke one. The same KeyService and the same view (keys/key.view.ts)
// as `svc keys`; the operator credential is not a listed key and cannot be revoked here.
import { z } from 'zod';
import { KeyCreated, KeyView } from '../../shared/schemas/control-output.js';
import { SCOPES } from '../../shared/scopes.js';
import { ApiError } from '../domain/errors.js';
import { keyView } from '../keys/key.view.js';
import type { Clock } from '../time/clock.js';
import { NoBody, params, route, WorkspaceQuery, type ApiKit } from './api-kit.js';
import type { DashboardServices } from './deps.js';

const CreateBody = z.strictObject({
  name: z.string().trim().min(1).max(200),
  scopes: z.array(z.enum(SCOPES)).min(1, 'pick at least one scope'),
});

export const keysRoutes = {
  'GET /keys': route(
    WorkspaceQuery,
    z.object({ data: z.array(KeyView), scopes: z.array(z.enum(SCOPES)) }),
  ),
  'POST /keys': route(CreateBody, KeyCreated),
  'POST /keys/:key_id/revoke': route(NoBody, KeyView),
};

export function keysApi(kit: ApiKit, services: DashboardServices, clock: Clock): void {
  kit.serve(keysRoutes, {
    'GET /keys': (_input, workspaceId) => ({
      data: services.keys.list(workspaceId).map((record) => keyView(record, clock.now())),
      scopes: [...SCOPES],
    }),
    'POST /keys': (input, workspaceId) => {
      const { key, record } = services.keys.create({ ...input, workspaceId });
      return { ...keyView(record, clock.now()), key };
    },
    'POST /keys/:key_id/revoke': (_input, workspaceId, request) => {
      const id = params(request).key_id!;
      // Only a key of the workspace the page shows: the id alone names any workspace's key.
      if (!services.keys.list(workspaceId).some((record) => record.id === id)) {
        throw new ApiError('not_found', `No API key ${id} in this workspace.`, { param: 'key_id' });
      }
      return keyView(services.keys.revoke(id), clock.now());
    },
  });
}
