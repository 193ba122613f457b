// The API of the Secrets page: the workspace's secret names and when each was set (never a
// value), set one (a new value replaces the old one), delete one. The same SecretService as
// `svc secrets set|list|delete` over the control channel.
import { z } from 'zod';
import { SecretDeleted } from '../../shared/schemas/control-output.js';
import { SecretInfo, SecretSetInput } from '../../shared/schemas/workflows.js';
import { ApiError } from '../domain/errors.js';
import { SecretNotFoundError } from '../secrets/secret.service.js';
import { NoBody, params, parse, route, WorkspaceQuery, type ApiKit } from './api-kit.js';
import type { DashboardServices } from './deps.js';

/** The CLI's input without its workspace: the page's workspace is the one in the query. */
const SetBody = SecretSetInput.omit({ workspace_id: true });
const NameParam = SecretSetInput.pick({ name: true });

export const secretsRoutes = {
  'GET /secrets': route(WorkspaceQuery, z.object({ data: z.array(SecretInfo) })),
  'POST /secrets': route(SetBody, SecretInfo),
  'POST /secrets/:name/delete': route(NoBody, SecretDeleted),
};

export function secretsApi(kit: ApiKit, services: DashboardServices): void {
  kit.serve(secretsRoutes, {
    'GET /secrets': (_input, workspaceId) => ({ data: services.secrets.list(workspaceId) }),
    'POST /secrets': (input, workspaceId) =>
      services.secrets.set(workspaceId, input.name, input.value),
    'POST /secrets/:name/delete': (_input, workspaceId, request) => {
      const { name } = parse(NameParam, { name: params(request).name });
      try {
        return services.secrets.delete(workspaceId, name);
      } catch (error) {
        if (error instanceof SecretNotFoundError) {
          throw new ApiError('not_found', error.message, { param: 'name' });
        }
        throw error;
      }
    },
  });
}
