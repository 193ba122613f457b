// svc faults add|list|remove|clear: sandbox fault rules; production refuses them.
import { z } from 'zod';
import { FaultAddInput, FaultIdInput, FaultListInput } from '../../shared/schemas/faults.js';
import { Cleared, FaultView } from '../../shared/schemas/control-output.js';
import type { ControlDeps } from './deps.js';
import { operator, t } from './procedure.js';

export function faultProcedures({ faults, workspaces }: ControlDeps) {
  return {
    /** Sandbox fault rules (svc faults add|list|remove|clear); production refuses them. */
    faults: t.router({
      add: operator
        .input(FaultAddInput)
        .output(FaultView)
        .mutation(({ input }) => {
          const { workspace_id: workspaceId, ...rule } = input;
          return faults.add(workspaces.existingId(workspaceId), rule);
        }),
      list: operator
        .input(FaultListInput)
        .output(z.array(FaultView))
        .query(({ input }) => faults.list(workspaces.existingId(input?.workspace_id))),
      remove: operator
        .input(FaultIdInput)
        .output(FaultView)
        .mutation(({ input }) =>
          faults.remove(workspaces.existingId(input.workspace_id), input.id),
        ),
      clear: operator
        .input(FaultListInput)
        .output(Cleared)
        .mutation(({ input }) => ({
          cleared: faults.clear(workspaces.existingId(input?.workspace_id)),
        })),
    }),
  };
}
