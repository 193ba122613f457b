// The API of the Keys page: the workspace's API keys (never their secret), create one (its secret
// shown once, in the answer), revoke one. The same KeyService as `svc keys`; the operator
// credential is not a listed key and cannot be revoked here.
import { z } from 'zod';
import { SCOPES } from '../../shared/scopes.js';
import { keyView } from '../control/views.js';
import { ApiError } from '../domain/errors.js';
import type { Clock } from '../time/clock.js';
import { NoBody, params, WorkspaceQuery, type ApiKit } from './api-kit.js';
import type { DashboardServices } from './deps.js';

const CreateBody = z.strictObject({
  name: z.string().trim().min(1).max(200),
  scopes: z.array(z.enum(SCOPES)).min(1, 'pick at least one scope'),
});

export function keysApi({ read, act }: ApiKit, services: DashboardServices, clock: Clock): void {
  read('/ui/api/keys', WorkspaceQuery, (_input, workspaceId) => ({
    data: services.keys.list(workspaceId).map((record) => keyView(record, clock.now())),
    scopes: SCOPES,
  }));
  act('/ui/api/keys', CreateBody, (input, workspaceId) => {
    const { key, record } = services.keys.create({ ...input, workspaceId });
    return { ...keyView(record, clock.now()), key };
  });
  act('/ui/api/keys/:key_id/revoke', NoBody, (_input, workspaceId, request) => {
    const id = params(request).key_id!;
    // Only a key of the workspace the page shows: the id alone names any workspace's key.
    if (!services.keys.list(workspaceId).some((record) => record.id === id)) {
      throw new ApiError('not_found', `No API key ${id} in this workspace.`, { param: 'key_id' });
    }
    return keyView(services.keys.revoke(id), clock.now());
  });
}
