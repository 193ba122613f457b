// A workspace (tenant) as every layer sees it: the access guard resolves it from X-Tenant-ID,
// routes pass it to services, services apply its tier's rules.
import type { ErrorCode } from '../../shared/errors.js';
import type { Tier } from '../../shared/tiers.js';
import { ApiError } from './errors.js';

export interface Workspace {
  id: string;
  name: string;
  tier: Tier;
  ownerId: string;
  createdAt: number;
}

/** A resource whose absence has its own error code: agent -> agent_not_found. */
type Owned = ErrorCode extends infer C ? (C extends `${infer N}_not_found` ? N : never) : never;

/**
 * The row when it exists and belongs to the workspace (to any, for null), else 404
 * `<noun>_not_found`: another workspace's resource is reported like one that does not exist.
 */
export function ownedRow<R extends { workspace_id: string }>(
  row: R | undefined,
  workspaceId: string | null,
  id: string,
  noun: Owned,
): R {
  if (!row || (workspaceId !== null && row.workspace_id !== workspaceId)) {
    throw new ApiError(
      `${noun}_not_found`,
      `No ${noun} ${id} in this workspace. List them with GET /v1/${noun}s.`,
      { param: `${noun}_id` },
    );
  }
  return row;
}
