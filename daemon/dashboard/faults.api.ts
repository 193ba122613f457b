// The API of the Fault rules page: the workspace's rules (with how often each was asked and hit),
// add one, clear them all. The same FaultService and the same checks as `svc faults add|list|clear`
// over the control channel, so a refusal names the CLI flag to fix, as there; production refuses.
import { FaultAddInput } from '../../shared/schemas/faults.js';
import { NoBody, WorkspaceQuery, type ApiKit } from './api-kit.js';
import type { DashboardServices } from './deps.js';

/** The CLI's rule without its workspace: the page's workspace is the one in the query. */
const AddBody = FaultAddInput.omit({ workspace_id: true });

export function faultsApi({ read, act }: ApiKit, services: DashboardServices): void {
  read('/ui/api/faults', WorkspaceQuery, (_input, workspaceId) => ({
    data: services.faults.list(workspaceId),
  }));
  act('/ui/api/faults', AddBody, (input, workspaceId) => services.faults.add(workspaceId, input));
  act('/ui/api/faults/clear', NoBody, (_input, workspaceId) => ({
    cleared: services.faults.clear(workspaceId),
  }));
}
