// Workspaces and keys as the control channel shows them.
import type { KeyView, WorkspaceView } from '../../shared/schemas/control-output.js';
import type { Workspace } from '../domain/workspace.js';
import type { KeyRecord } from '../keys/key.service.js';
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

export function keyView(record: KeyRecord, now?: number): KeyView {
  const expired = record.expires_at !== null && now !== undefined && record.expires_at <= now;
  return {
    id: record.id,
    name: record.name,
    scopes: record.scopes,
    workspace_id: record.workspace_id,
    environment: record.environment,
    hint: `...${record.hint}`,
    status: record.revoked_at !== null ? 'revoked' : expired ? 'expired' : 'active',
    created_at: toIso(record.created_at),
    expires_at: toIso(record.expires_at),
    revoked_at: toIso(record.revoked_at),
    rotated_to: record.rotated_to,
    last_used_at: toIso(record.last_used_at),
  };
}
