// An API key as every surface shows it (the control channel's `svc keys`, the dashboard's Keys
// page): never its secret, only a hint of its last characters, and its status on the clock.
import type { KeyView } from '../../shared/schemas/control-output.js';
import { toIso } from '../time/clock.js';
import type { KeyRecord } from './key.service.js';

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
