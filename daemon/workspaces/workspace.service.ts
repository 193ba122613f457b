// Workspaces (tenants) and the local operator. The first start creates the operator user and
// a default enterprise workspace; their ids are kept in settings.
import { newId } from '../../shared/ids.js';
import type { Clock } from '../time/clock.js';
import { ApiError } from '../domain/errors.js';
import { pick } from '../domain/views.js';
import type { Tier } from '../ratelimit/plans.js';
import type { SettingsRepository } from '../store/settings.repository.js';
import type { Transactions } from '../domain/transactions.js';
import type { Workspace } from '../domain/workspace.js';
import { TeamCache } from '../store/team-cache.js';
import { ALONE, type TeamNotices } from '../store/team-notices.js';
import type { UserRow, WorkspaceRepository, WorkspaceRow } from './workspace.repository.js';

export class WorkspaceService {
  /**
   * Workspaces are read on every tenant-scoped request and change rarely: keep them (a tier
   * changed on any daemon of the sandbox is read again by all, for their rate limits).
   */
  private readonly cache: TeamCache<Workspace>;
  private operator!: UserRow;
  private defaultId!: string;

  constructor(
    private readonly db: Transactions,
    private readonly repo: WorkspaceRepository,
    private readonly settings: SettingsRepository,
    private readonly clock: Clock,
    notices: Pick<TeamNotices, 'notify' | 'on' | 'onResync'> = ALONE,
  ) {
    this.cache = new TeamCache('workspaces', notices);
  }

  /** Creates the operator and the default workspace on first start; loads them after. */
  bootstrap(): void {
    this.db.transaction(() => {
      let operatorId = this.settings.get('operator_user_id');
      if (!operatorId) {
        operatorId = newId('user');
        this.repo.insertUser({
          id: operatorId,
          name: 'Local operator',
          created_at: this.clock.now(),
        });
        this.settings.set('operator_user_id', operatorId);
      }
      let defaultId = this.settings.get('default_workspace_id');
      if (!defaultId) {
        defaultId = this.insert('Default workspace', 'enterprise', operatorId).id;
        this.settings.set('default_workspace_id', defaultId);
      }
      this.operator = this.repo.getUser(operatorId)!;
      this.defaultId = defaultId;
    })();
  }

  get operatorUser(): { id: string; name: string } {
    return { id: this.operator.id, name: this.operator.name };
  }

  get defaultWorkspaceId(): string {
    return this.defaultId;
  }

  create(name: string, tier: Tier): Workspace {
    return this.insert(name, tier, this.operator.id);
  }

  get(id: string): Workspace | undefined {
    const cached = this.cache.get(id);
    if (cached) return cached;
    const row = this.repo.get(id);
    if (!row) return undefined;
    const workspace = toWorkspace(row);
    this.cache.set(id, workspace);
    return workspace;
  }

  /**
   * The id of an existing workspace: the given one, else the default. `param` names the input
   * that held it in the error.
   */
  existingId(id: string | undefined, param?: string): string {
    const workspaceId = id ?? this.defaultId;
    if (!this.get(workspaceId)) {
      throw new ApiError(
        'not_found',
        `No workspace ${workspaceId}. List them with: svc workspaces list`,
        { param },
      );
    }
    return workspaceId;
  }

  list(): Workspace[] {
    return this.repo.listByOwner(this.operator.id).map(toWorkspace);
  }

  setTier(id: string, tier: Tier): Workspace | undefined {
    this.repo.updateTier(id, tier);
    this.cache.changed(id);
    return this.get(id);
  }

  private insert(name: string, tier: Tier, ownerId: string): Workspace {
    const row: WorkspaceRow = {
      id: newId('workspace'),
      name,
      tier,
      owner_id: ownerId,
      created_at: this.clock.now(),
    };
    this.repo.insert(row);
    return toWorkspace(row);
  }
}

function toWorkspace(row: WorkspaceRow): Workspace {
  return {
    ...pick(row, ['id', 'name', 'tier']),
    ownerId: row.owner_id,
    createdAt: row.created_at,
  };
}
