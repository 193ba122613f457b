// OAuth rows: apps, grants (one consent each), authorization codes and tokens. Secrets, codes
// and tokens are stored as SHA-256 only.
import type { Db } from '../store/db.js';
import { prepareInsert } from '../store/object-rows.js';

export interface AppRow {
  id: string;
  workspace_id: string;
  name: string;
  /** JSON array of exact redirect URIs. */
  redirect_uris: string;
  scopes: string;
  public: 0 | 1;
  secret_hash: string | null;
  secret_hint: string | null;
  created_at: number;
  deleted_at: number | null;
}

export interface GrantRow {
  id: string;
  app_id: string;
  user_id: string;
  workspace_id: string;
  scopes: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
  revoked_reason: string | null;
}

export interface CodeRow {
  hash: string;
  grant_id: string;
  app_id: string;
  redirect_uri: string;
  code_challenge: string | null;
  code_challenge_method: string | null;
  scopes: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface TokenRow {
  id: string;
  kind: 'access' | 'refresh';
  hash: string;
  grant_id: string;
  app_id: string;
  scopes: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
  revoked_at: number | null;
}

/** A token with the grant it belongs to, as the credential lookup needs it. */
export interface TokenWithGrant extends TokenRow {
  user_id: string;
  workspace_id: string;
  grant_revoked_at: number | null;
}

export class OAuthRepository {
  private readonly s;

  constructor(db: Db) {
    this.s = {
      insertApp: prepareInsert(
        db,
        'oauth_apps',
        'id, workspace_id, name, redirect_uris, scopes, public, secret_hash, secret_hint, created_at, deleted_at',
      ),
      appById: db.prepare<[string], AppRow>(
        'SELECT * FROM oauth_apps WHERE id = ? AND deleted_at IS NULL',
      ),
      listApps: db.prepare<[], AppRow>(
        'SELECT * FROM oauth_apps WHERE deleted_at IS NULL ORDER BY created_at DESC, id DESC',
      ),
      listAppsByWorkspace: db.prepare<[string], AppRow>(
        'SELECT * FROM oauth_apps WHERE deleted_at IS NULL AND workspace_id = ? ORDER BY created_at DESC, id DESC',
      ),
      deleteApp: db.prepare('UPDATE oauth_apps SET deleted_at = ? WHERE id = ?'),
      insertGrant: prepareInsert(
        db,
        'oauth_grants',
        'id, app_id, user_id, workspace_id, scopes, created_at, last_used_at, revoked_at, revoked_reason',
      ),
      grantById: db.prepare<[string], GrantRow>('SELECT * FROM oauth_grants WHERE id = ?'),
      listGrants: db.prepare<[], GrantRow>(
        'SELECT * FROM oauth_grants ORDER BY created_at DESC, id DESC',
      ),
      revokeGrant: db.prepare(
        'UPDATE oauth_grants SET revoked_at = ?, revoked_reason = ? WHERE id = ? AND revoked_at IS NULL',
      ),
      revokeGrantsOfApp: db.prepare(
        'UPDATE oauth_grants SET revoked_at = ?, revoked_reason = ? WHERE app_id = ? AND revoked_at IS NULL',
      ),
      touchGrant: db.prepare('UPDATE oauth_grants SET last_used_at = ? WHERE id = ?'),
      insertCode: prepareInsert(
        db,
        'oauth_codes',
        'hash, grant_id, app_id, redirect_uri, code_challenge, code_challenge_method, scopes, created_at, expires_at, used_at',
      ),
      codeByHash: db.prepare<[string], CodeRow>('SELECT * FROM oauth_codes WHERE hash = ?'),
      useCode: db.prepare(
        'UPDATE oauth_codes SET used_at = ? WHERE hash = ? AND used_at IS NULL AND expires_at > ?',
      ),
      deleteExpiredCodes: db.prepare('DELETE FROM oauth_codes WHERE expires_at <= ?'),
      insertToken: prepareInsert(
        db,
        'oauth_tokens',
        'id, kind, hash, grant_id, app_id, scopes, created_at, expires_at, used_at, revoked_at',
      ),
      tokenByHash: db.prepare<[string], TokenWithGrant>(
        `SELECT t.*, g.user_id, g.workspace_id, g.revoked_at AS grant_revoked_at
         FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id WHERE t.hash = ?`,
      ),
      useToken: db.prepare(
        'UPDATE oauth_tokens SET used_at = ? WHERE id = ? AND used_at IS NULL AND revoked_at IS NULL',
      ),
      revokeToken: db.prepare(
        'UPDATE oauth_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL',
      ),
      revokeTokensOfGrant: db.prepare(
        'UPDATE oauth_tokens SET revoked_at = ? WHERE grant_id = ? AND revoked_at IS NULL',
      ),
      revokeTokensOfApp: db.prepare(
        'UPDATE oauth_tokens SET revoked_at = ? WHERE app_id = ? AND revoked_at IS NULL',
      ),
      deleteExpiredTokens: db.prepare(
        'DELETE FROM oauth_tokens WHERE expires_at <= ? OR revoked_at <= ?',
      ),
      activeTokenCounts: db.prepare<[number], { grant_id: string; n: number }>(
        `SELECT grant_id, COUNT(*) AS n FROM oauth_tokens
         WHERE revoked_at IS NULL AND used_at IS NULL AND expires_at > ? GROUP BY grant_id`,
      ),
    };
  }

  insertApp(row: AppRow): void {
    this.s.insertApp.run(row);
  }

  app(id: string): AppRow | undefined {
    return this.s.appById.get(id);
  }

  apps(workspaceId?: string): AppRow[] {
    return workspaceId ? this.s.listAppsByWorkspace.all(workspaceId) : this.s.listApps.all();
  }

  deleteApp(id: string, at: number): void {
    this.s.deleteApp.run(at, id);
  }

  insertGrant(row: GrantRow): void {
    this.s.insertGrant.run(row);
  }

  grant(id: string): GrantRow | undefined {
    return this.s.grantById.get(id);
  }

  grants(): GrantRow[] {
    return this.s.listGrants.all();
  }

  /** Marks the grant and every token it issued revoked; false when it was revoked already. */
  revokeGrant(id: string, at: number, reason: string): boolean {
    const changed = this.s.revokeGrant.run(at, reason, id).changes === 1;
    this.s.revokeTokensOfGrant.run(at, id);
    return changed;
  }

  revokeApp(appId: string, at: number): void {
    this.s.revokeGrantsOfApp.run(at, 'app deleted', appId);
    this.s.revokeTokensOfApp.run(at, appId);
  }

  touchGrant(id: string, at: number): void {
    this.s.touchGrant.run(at, id);
  }

  insertCode(row: CodeRow): void {
    this.s.insertCode.run(row);
  }

  code(hash: string): CodeRow | undefined {
    return this.s.codeByHash.get(hash);
  }

  /** Consumes a code: true for the one caller that uses it while it is still valid. */
  useCode(hash: string, at: number): boolean {
    return this.s.useCode.run(at, hash, at).changes === 1;
  }

  insertToken(row: TokenRow): void {
    this.s.insertToken.run(row);
  }

  token(hash: string): TokenWithGrant | undefined {
    return this.s.tokenByHash.get(hash);
  }

  /** Marks a refresh token used (rotated out): true for the one caller that wins. */
  useToken(id: string, at: number): boolean {
    return this.s.useToken.run(at, id).changes === 1;
  }

  revokeToken(id: string, at: number): void {
    this.s.revokeToken.run(at, id);
  }

  /** Live (unused, unrevoked, unexpired at `now`) tokens per grant, for the grant list. */
  activeTokenCounts(now: number): Map<string, number> {
    return new Map(this.s.activeTokenCounts.all(now).map((row) => [row.grant_id, row.n]));
  }

  /** Housekeeping: codes and tokens that expired (or were revoked) before `before`. */
  purge(before: number): number {
    const codes = this.s.deleteExpiredCodes.run(before).changes;
    return codes + this.s.deleteExpiredTokens.run(before, before).changes;
  }
}
