// Users and workspaces. The local operator is the one user; workspaces are the tenants.
import type { Tier } from '../ratelimit/plans.js';
import type { Db } from '../store/db.js';
import { prepareInsert } from '../store/object-rows.js';

export interface WorkspaceRow {
  id: string;
  name: string;
  tier: Tier;
  owner_id: string;
  created_at: number;
}

export interface UserRow {
  id: string;
  name: string;
  created_at: number;
}

export class WorkspaceRepository {
  private readonly insertWorkspaceStmt;
  private readonly insertUserStmt;
  private readonly getStmt;
  private readonly getUserStmt;
  private readonly listStmt;
  private readonly updateTierStmt;

  constructor(db: Db) {
    this.insertWorkspaceStmt = prepareInsert(
      db,
      'workspaces',
      'id, name, tier, owner_id, created_at',
    );
    this.insertUserStmt = prepareInsert(db, 'users', 'id, name, created_at');
    this.getStmt = db.prepare<[string], WorkspaceRow>('SELECT * FROM workspaces WHERE id = ?');
    this.getUserStmt = db.prepare<[string], UserRow>('SELECT * FROM users WHERE id = ?');
    this.listStmt = db.prepare<[string], WorkspaceRow>(
      'SELECT * FROM workspaces WHERE owner_id = ? ORDER BY created_at DESC, id DESC',
    );
    this.updateTierStmt = db.prepare('UPDATE workspaces SET tier = ? WHERE id = ?');
  }

  insert(row: WorkspaceRow): void {
    this.insertWorkspaceStmt.run(row);
  }

  insertUser(row: UserRow): void {
    this.insertUserStmt.run(row);
  }

  get(id: string): WorkspaceRow | undefined {
    return this.getStmt.get(id);
  }

  getUser(id: string): UserRow | undefined {
    return this.getUserStmt.get(id);
  }

  listByOwner(ownerId: string): WorkspaceRow[] {
    return this.listStmt.all(ownerId);
  }

  updateTier(id: string, tier: Tier): void {
    this.updateTierStmt.run(tier, id);
  }
}
