// The API of the Secrets page: the workspace's secret names and when each was set (never a
// value), set one (a new value replaces the old one), delete one. The same SecretService as
// `svc secrets set|list|delete` over the control channel.
import { SecretSetInput } from '../../shared/schemas/workflows.js';
import { ApiError } from '../domain/errors.js';
import { SecretNotFoundError } from '../secrets/secret.service.js';
import { NoBody, params, parse, WorkspaceQuery, type ApiKit } from './api-kit.js';
import type { DashboardServices } from './deps.js';

/** The CLI's input without its workspace: the page's workspace is the one in the query. */
const SetBody = SecretSetInput.omit({ workspace_id: true });
const NameParam = SecretSetInput.pick({ name: true });

export function secretsApi({ read, act }: ApiKit, services: DashboardServices): void {
  read('/ui/api/secrets', WorkspaceQuery, (_input, workspaceId) => ({
    data: services.secrets.list(workspaceId),
  }));
  act('/ui/api/secrets', SetBody, (input, workspaceId) =>
    services.secrets.set(workspaceId, input.name, input.value),
  );
  act('/ui/api/secrets/:name/delete', NoBody, (_input, workspaceId, request) => {
    const { name } = parse(NameParam, { name: params(request).name });
    try {
      return services.secrets.delete(workspaceId, name);
    } catch (error) {
      if (error instanceof SecretNotFoundError) {
        throw new ApiError('not_found', error.message, { param: 'name' });
      }
      throw error;
    }
  });
}
