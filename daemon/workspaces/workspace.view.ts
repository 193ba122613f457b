// A workspace as every surface lists it (the control channel's `svc workspaces`, the dashboard's
// workspace picker): whether it is the default one is known to the caller.
import type { WorkspaceView } from '../../shared/schemas/control-output.js';
import type { Workspace } from '../domain/workspace.js';
import { toIso } from '../time/clock.js';

export function workspaceView(ws: Workspace, defaultId: string): WorkspaceView {
  return {
    id: ws.id,
    name: ws.name,
    tier: ws.tier,
    default: ws.id === defaultId,
    created_at: toIso(ws.createdAt),
  };
}
