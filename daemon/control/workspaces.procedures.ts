// svc workspaces create|list: workspaces exist on the control channel only (not on REST).
import { z } from 'zod';
import { WorkspaceCreateInput } from '../../shared/schemas/control.js';
import { WorkspaceView } from '../../shared/schemas/control-output.js';
import type { ControlDeps } from './deps.js';
import { operator, t } from './procedure.js';
import { workspaceView } from '../workspaces/workspace.view.js';

export function workspaceProcedures({ workspaces }: ControlDeps) {
  return {
    workspaces: t.router({
      create: operator
        .input(WorkspaceCreateInput)
        .output(WorkspaceView)
        .mutation(({ input }) =>
          workspaceView(workspaces.create(input.name, input.tier), workspaces.defaultWorkspaceId),
        ),
      list: operator
        .output(z.array(WorkspaceView))
        .query(() =>
          workspaces.list().map((ws) => workspaceView(ws, workspaces.defaultWorkspaceId)),
        ),
    }),
  };
}
