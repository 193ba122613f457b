// Workspace secrets for workflow steps ({{secrets.NAME}}) and agent brains: values are sealed
// with the daemon's SecretBox at rest, listed by name only, and revealed only to the code that
// uses them. Opened values are cached in memory, since steps read them on every run (a TeamCache:
// a secret set or deleted on any daemon of the sandbox is read again by all).
import type { SecretInfoView } from '../../shared/schemas/workflows.js';
import { toIso, type Clock } from '../time/clock.js';
import type { SecretBox } from '../platform/secret-box.js';
import { TeamCache } from '../store/team-cache.js';
import { ALONE, type TeamNotices } from '../store/team-notices.js';
import type { SecretRepository } from './secret.repository.js';

export class SecretNotFoundError extends Error {
  constructor(readonly secretName: string) {
    super(
      `No secret named ${secretName} in this workspace. Set it with: svc secrets set ${secretName} VALUE`,
    );
  }
}

export class SecretService {
  private readonly opened: TeamCache<string | null>;

  constructor(
    private readonly repo: SecretRepository,
    private readonly box: SecretBox,
    private readonly clock: Clock,
    notices: Pick<TeamNotices, 'notify' | 'on' | 'onResync'> = ALONE,
  ) {
    this.opened = new TeamCache('secrets', notices);
  }

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
    this.opened.changed(cacheKey(workspaceId, name));
    return info(row);
  }

  list(workspaceId: string): SecretInfoView[] {
    return this.repo.list(workspaceId).map(info);
  }

  delete(workspaceId: string, name: string): { name: string; workspace_id: string; deleted: true } {
    if (!this.repo.delete(workspaceId, name)) throw new SecretNotFoundError(name);
    this.opened.changed(cacheKey(workspaceId, name));
    return { name, workspace_id: workspaceId, deleted: true };
  }

  /** The plain value, or undefined when the workspace has no such secret. */
  reveal(workspaceId: string, name: string): string | undefined {
    const value = this.opened.read(cacheKey(workspaceId, name), () => {
      const row = this.repo.get(workspaceId, name);
      return row ? this.box.open(row.sealed) : null;
    });
    return value ?? undefined;
  }
}

function cacheKey(workspaceId: string, name: string): string {
  // A space cannot be in a workspace id: the key travels in a notice's text.
  return `${workspaceId} ${name}`;
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
