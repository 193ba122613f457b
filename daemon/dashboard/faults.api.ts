// The API of the Fault rules page: the workspace's rules (with how often each was asked and hit),
// add one, clear them all. The same FaultService and the same checks as `svc faults add|list|clear`
// over the control channel, so a refusal names the CLI flag to fix, as there; production refuses.
import { z } from 'zod';
import { Cleared } from '../../shared/schemas/control-output.js';
import { FaultAddInput, FaultView } from '../../shared/schemas/faults.js';
import { NoBody, route, WorkspaceQuery, type ApiKit } from './api-kit.js';
import type { DashboardServices } from './deps.js';

/** The CLI's rule without its workspace: the page's workspace is the one in the query. */
const AddBody = FaultAddInput.omit({ workspace_id: true });

export const faultsRoutes = {
  'GET /faults': route(WorkspaceQuery, z.object({ data: z.array(FaultView) })),
  'POST /faults': route(AddBody, FaultView),
  'POST /faults/clear': route(NoBody, Cleared),
};

export function faultsApi(kit: ApiKit, services: DashboardServices): void {
  kit.serve(faultsRoutes, {
    'GET /faults': (_input, workspaceId) => ({ data: services.faults.list(workspaceId) }),
    'POST /faults': (input, workspaceId) => services.faults.add(workspaceId, input),
    'POST /faults/clear': (_input, workspaceId) => ({
      cleared: services.faults.clear(workspaceId),
    }),
  });
}
