// svc workflows trigger: a body signed for a workflow's webhook trigger; the secret stays here.
import { HookSignInput } from '../../shared/schemas/control.js';
import { HookSignature } from '../../shared/schemas/control-output.js';
import type { ControlDeps } from './deps.js';
import { operator, t } from './procedure.js';

export function triggerProcedures({ triggers, workspaces }: ControlDeps) {
  return {
    triggers: t.router({
      /** svc workflows trigger: signs a body for a workflow's hook; the secret stays here. */
      signHook: operator
        .input(HookSignInput)
        .output(HookSignature)
        .mutation(({ input }) =>
          triggers.signHook(
            workspaces.existingId(input.workspace_id),
            input.workflow_id,
            input.body,
          ),
        ),
    }),
  };
}
