// The dashboard's login tokens and sessions in the store (team mode, migration 029): every
// daemon of the sandbox reads the same rows, so a login on one works on all. Only hashes are
// stored (sessions.ts); a token is taken by one DELETE ... RETURNING, so it is spent once even
// when two daemons are handed it at once.
import type { Db } from '../store/db.js';
import { MAX_ENTRIES, type SessionRows } from './sessions.js';

export class StoredSessionRows implements SessionRows {
  private readonly statements;

  constructor(db: Db) {
    this.statements = {
      putToken: db.prepare(
        'INSERT INTO dashboard_login_tokens (token_hash, expires_at) VALUES (?, ?)',
      ),
      takeToken: db
        .prepare<[string], number>(
          'DELETE FROM dashboard_login_tokens WHERE token_hash = ? RETURNING expires_at',
        )
        .pluck(),
      putSession: db.prepare(
        'INSERT INTO dashboard_sessions (session_hash, last_seen_at) VALUES (?, ?)',
      ),
      lastSeen: db
        .prepare<[string], number>(
          'SELECT last_seen_at FROM dashboard_sessions WHERE session_hash = ?',
        )
        .pluck(),
      touch: db.prepare(
        'UPDATE dashboard_sessions SET last_seen_at = ? WHERE session_hash = ? AND last_seen_at < ?',
      ),
      deleteSession: db.prepare('DELETE FROM dashboard_sessions WHERE session_hash = ?'),
      expiredTokens: db.prepare('DELETE FROM dashboard_login_tokens WHERE expires_at <= ?'),
      idleSessions: db.prepare('DELETE FROM dashboard_sessions WHERE last_seen_at < ?'),
      // Past the bound: all but the MAX_ENTRIES - 1 latest (one is about to be added).
      oldestSessions: db.prepare(
        `DELETE FROM dashboard_sessions WHERE last_seen_at < (
           SELECT last_seen_at FROM dashboard_sessions ORDER BY last_seen_at DESC LIMIT 1 OFFSET ${MAX_ENTRIES - 1})`,
      ),
    };
  }

  putToken(tokenHash: string, expiresAt: number): void {
    this.statements.putToken.run(tokenHash, expiresAt);
  }

  takeToken(tokenHash: string): number | undefined {
    const expiresAt = this.statements.takeToken.get(tokenHash);
    return expiresAt === undefined ? undefined : Number(expiresAt);
  }

  putSession(sessionHash: string, lastSeenAt: number): void {
    this.statements.putSession.run(sessionHash, lastSeenAt);
  }

  lastSeen(sessionHash: string): number | undefined {
    const lastSeenAt = this.statements.lastSeen.get(sessionHash);
    return lastSeenAt === undefined ? undefined : Number(lastSeenAt);
  }

  touch(sessionHash: string, at: number): void {
    this.statements.touch.run(at, sessionHash, at);
  }

  deleteSession(sessionHash: string): void {
    this.statements.deleteSession.run(sessionHash);
  }

  sweep(now: number, idleBefore: number): void {
    this.statements.expiredTokens.run(now);
    this.statements.idleSessions.run(idleBefore);
    this.statements.oldestSessions.run();
  }
}
