// API key rows. Only the SHA-256 of a key is stored; the key itself is shown once.
import type { Db } from '../store/db.js';
import { prepareInsert } from '../store/object-rows.js';

export interface KeyRow {
  id: string;
  kind: 'standard' | 'operator';
  user_id: string;
  workspace_id: string | null;
  name: string;
  hash: string;
  hint: string;
  scopes: string;
  environment: 'sandbox' | 'production';
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
  rotated_to: string | null;
  /** Stored at most once a minute (key-usage.ts): the newest use may be held in memory. */
  last_used_at: number | null;
}

export class KeyRepository {
  private readonly insertStmt;
  private readonly byHashStmt;
  private readonly byIdStmt;
  private readonly listStmt;
  private readonly listByWorkspaceStmt;
  private readonly otherOperatorsStmt;
  private readonly revokeStmt;
  private readonly rotateStmt;
  private readonly deleteOperatorStmt;
  private readonly deleteOperatorNamedStmt;
  private readonly usedStmt;

  constructor(db: Db) {
    this.insertStmt = prepareInsert(
      db,
      'api_keys',
      'id, kind, user_id, workspace_id, name, hash, hint, scopes, environment, created_at, expires_at, revoked_at, rotated_to',
    );
    this.byHashStmt = db.prepare<[string], KeyRow>('SELECT * FROM api_keys WHERE hash = ?');
    this.byIdStmt = db.prepare<[string], KeyRow>('SELECT * FROM api_keys WHERE id = ?');
    this.listStmt = db.prepare<[], KeyRow>(
      "SELECT * FROM api_keys WHERE kind = 'standard' ORDER BY created_at DESC, id DESC",
    );
    this.listByWorkspaceStmt = db.prepare<[string], KeyRow>(
      "SELECT * FROM api_keys WHERE kind = 'standard' AND workspace_id = ? ORDER BY created_at DESC, id DESC",
    );
    this.otherOperatorsStmt = db.prepare<[string], KeyRow>(
      "SELECT * FROM api_keys WHERE kind = 'operator' AND name <> ? ORDER BY created_at DESC, id DESC",
    );
    this.revokeStmt = db.prepare(
      'UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL',
    );
    this.rotateStmt = db.prepare('UPDATE api_keys SET expires_at = ?, rotated_to = ? WHERE id = ?');
    this.deleteOperatorStmt = db.prepare("DELETE FROM api_keys WHERE kind = 'operator'");
    this.deleteOperatorNamedStmt = db.prepare(
      "DELETE FROM api_keys WHERE kind = 'operator' AND name = ?",
    );
    // Never moves the time back (a use held before the sandbox clock was moved back).
    this.usedStmt = db.prepare<[number, string, number]>(
      'UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)',
    );
  }

  insert(row: KeyRow): void {
    this.insertStmt.run(row);
  }

  byHash(hash: string): KeyRow | undefined {
    return this.byHashStmt.get(hash);
  }

  byId(id: string): KeyRow | undefined {
    return this.byIdStmt.get(id);
  }

  list(workspaceId?: string): KeyRow[] {
    return workspaceId ? this.listByWorkspaceStmt.all(workspaceId) : this.listStmt.all();
  }

  /** The operator keys not named `name` (team mode: those of the sandbox's other data dirs). */
  otherOperatorKeys(name: string): KeyRow[] {
    return this.otherOperatorsStmt.all(name);
  }

  revoke(id: string, at: number): void {
    this.revokeStmt.run(at, id);
  }

  markRotated(id: string, expiresAt: number, rotatedTo: string): void {
    this.rotateStmt.run(expiresAt, rotatedTo, id);
  }

  markUsed(id: string, at: number): void {
    this.usedStmt.run(at, id, at);
  }

  /** Every operator key, or (team mode) only the one of that name: one daemon's. */
  deleteOperatorKeys(name?: string): void {
    if (name === undefined) this.deleteOperatorStmt.run();
    else this.deleteOperatorNamedStmt.run(name);
  }
}
