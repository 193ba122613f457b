// Workspace secrets for workflow steps ({{secrets.NAME}}) and agent brains: values are sealed
// with the daemon's SecretBox at rest, listed by name only, and revealed only to the code that
// uses them. Opened values are cached in memory, since steps read them on every run.
import type { SecretInfoView } from '../../shared/schemas/workflows.js';
import { toIso, type Clock } from '../time/clock.js';
import type { SecretBox } from '../platform/secret-box.js';
import type { SecretRepository } from './secret.repository.js';

export class SecretNotFoundError extends Error {
  constructor(readonly secretName: string) {
    super(
      `No secret named ${secretName} in this workspace. Set it with: svc secrets set ${secretName} VALUE`,
    );
  }
}

export class SecretService {
  private readonly opened = new Map<string, string | null>();

  constructor(
    private readonly repo: SecretRepository,
    private readonly box: SecretBox,
    private readonly clock: Clock,
  ) {}

  set(workspaceId: string, name: string, value: string): SecretInfoView {
    const now = this.clock.now();
    const existing = this.repo.get(workspaceId, name);
    const row = {
      workspace_id: workspaceId,
      name,
      sealed: this.box.seal(value),
      created_at: existing?.created_at ?? now,
      updated_at: now,
    };
    this.repo.upsert(row);
    this.opened.set(cacheKey(workspaceId, name), value);
    return info(row);
  }

  list(workspaceId: string): SecretInfoView[] {
    return this.repo.list(workspaceId).map(info);
  }

  delete(workspaceId: string, name: string): { name: string; workspace_id: string; deleted: true } {
    if (!this.repo.delete(workspaceId, name)) throw new SecretNotFoundError(name);
    this.opened.delete(cacheKey(workspaceId, name));
    return { name, workspace_id: workspaceId, deleted: true };
  }

  /** The plain value, or undefined when the workspace has no such secret. */
  reveal(workspaceId: string, name: string): string | undefined {
    const key = cacheKey(workspaceId, name);
    let value = this.opened.get(key);
    if (value === undefined) {
      const row = this.repo.get(workspaceId, name);
      value = row ? this.box.open(row.sealed) : null;
      if (this.opened.size > 10_000) this.opened.clear();
      this.opened.set(key, value);
    }
    return value ?? undefined;
  }
}

function cacheKey(workspaceId: string, name: string): string {
  return `${workspaceId}\u0000${name}`;
}

function info(row: {
  workspace_id: string;
  name: string;
  created_at: number;
  updated_at: number;
}): SecretInfoView {
  return {
    name: row.name,
    workspace_id: row.workspace_id,
    created_at: toIso(row.created_at),
    updated_at: toIso(row.updated_at),
  };
}
