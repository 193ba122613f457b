// Workspace secrets, stored sealed (never as plain text).
import type { Db } from '../store/db.js';

export interface SecretRow {
  workspace_id: string;
  name: string;
  sealed: string;
  created_at: number;
  updated_at: number;
}

export class SecretRepository {
  private readonly upsertStmt;
  private readonly getStmt;
  private readonly listStmt;
  private readonly deleteStmt;

  constructor(db: Db) {
    this.upsertStmt = db.prepare(
      `INSERT INTO secrets (workspace_id, name, sealed, created_at, updated_at)
       VALUES (@workspace_id, @name, @sealed, @created_at, @updated_at)
       ON CONFLICT (workspace_id, name) DO UPDATE SET sealed = excluded.sealed, updated_at = excluded.updated_at`,
    );
    this.getStmt = db.prepare<[string, string], SecretRow>(
      'SELECT * FROM secrets WHERE workspace_id = ? AND name = ?',
    );
    this.listStmt = db.prepare<[string], SecretRow>(
      'SELECT * FROM secrets WHERE workspace_id = ? ORDER BY name',
    );
    this.deleteStmt = db.prepare('DELETE FROM secrets WHERE workspace_id = ? AND name = ?');
  }

  upsert(row: SecretRow): void {
    this.upsertStmt.run(row);
  }

  get(workspaceId: string, name: string): SecretRow | undefined {
    return this.getStmt.get(workspaceId, name);
  }

  list(workspaceId: string): SecretRow[] {
    return this.listStmt.all(workspaceId);
  }

  delete(workspaceId: string, name: string): boolean {
    return this.deleteStmt.run(workspaceId, name).changes > 0;
  }
}
