// Who may use the dashboard: one-time login tokens (minted over the control channel by
// `svc dashboard`) exchanged for a session. Only hashes of tokens and session ids are kept:
// in the daemon's memory alone (SQLite, one daemon: a restart logs everyone out), or in the
// store (team mode: a login on one daemon's dashboard works on every daemon of the sandbox,
// session.repository.ts). The CSRF token is derived from the session id, so it is stored
// nowhere. Times are real time, not the sandbox clock: advancing the clock a day from the
// dashboard must not log its user out.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** A login token is valid this long, and once. */
export const LOGIN_TOKEN_TTL_MS = 5 * 60_000;
/** A session ends after this long without a request. */
export const SESSION_IDLE_MS = 12 * 3_600_000;
/** A session's last request is written at most this often (a store write, in team mode). */
export const SESSION_TOUCH_MS = 60_000;
/** Tokens and sessions kept at most (oldest dropped first): a bound on memory, and on rows. */
export const MAX_ENTRIES = 1000;

export interface DashboardSession {
  /** Sent with every state-changing request (X-CSRF-Token), compared in constant time. */
  csrfToken: string;
  lastSeenAt: number;
}

export interface LoginToken {
  token: string;
  expiresAt: number;
}

/**
 * Where the hashes of tokens and sessions are kept: this daemon's memory (MemorySessionRows),
 * or the sandbox's store (StoredSessionRows), which every daemon of it reads.
 */
export interface SessionRows {
  putToken(tokenHash: string, expiresAt: number): void;
  /** Removes the token (spent, whatever happens next) and answers its expiry, if it was there. */
  takeToken(tokenHash: string): number | undefined;
  putSession(sessionHash: string, lastSeenAt: number): void;
  lastSeen(sessionHash: string): number | undefined;
  touch(sessionHash: string, at: number): void;
  deleteSession(sessionHash: string): void;
  /** Drops expired tokens, sessions idle since before `idleBefore`, and the oldest past the bound. */
  sweep(now: number, idleBefore: number): void;
}

export class DashboardSessions {
  /**
   * `cookieName`: the session cookie's name when sessions are shared by the daemons of a
   * sandbox (one name for all of them); undefined, the dashboard names it per port.
   */
  constructor(
    private readonly now: () => number = Date.now,
    private readonly rows: SessionRows = new MemorySessionRows(),
    readonly cookieName?: string,
  ) {}

  mintLoginToken(): LoginToken {
    this.rows.sweep(this.now(), this.now() - SESSION_IDLE_MS);
    const token = randomBytes(32).toString('base64url');
    const expiresAt = this.now() + LOGIN_TOKEN_TTL_MS;
    this.rows.putToken(hash(token), expiresAt);
    return { token, expiresAt };
  }

  /**
   * Exchanges a login token for a new session: the token is spent whatever happens next, so a
   * second use is refused. Undefined when the token is unknown, spent or expired.
   */
  redeem(token: string): { sessionId: string; session: DashboardSession } | undefined {
    const expiresAt = this.rows.takeToken(hash(token));
    if (expiresAt === undefined || expiresAt <= this.now()) return undefined;
    const sessionId = randomBytes(32).toString('base64url');
    const lastSeenAt = this.now();
    this.rows.putSession(hash(sessionId), lastSeenAt);
    return { sessionId, session: { csrfToken: csrfOf(sessionId), lastSeenAt } };
  }

  /** The live session of a cookie value; touching it keeps it alive. */
  session(sessionId: string | undefined): DashboardSession | undefined {
    if (!sessionId) return undefined;
    const key = hash(sessionId);
    const lastSeenAt = this.rows.lastSeen(key);
    if (lastSeenAt === undefined) return undefined;
    const now = this.now();
    if (now - lastSeenAt > SESSION_IDLE_MS) {
      this.rows.deleteSession(key);
      return undefined;
    }
    if (now - lastSeenAt >= SESSION_TOUCH_MS) this.rows.touch(key, now);
    return { csrfToken: csrfOf(sessionId), lastSeenAt: now };
  }

  end(sessionId: string | undefined): void {
    if (sessionId) this.rows.deleteSession(hash(sessionId));
  }

  static csrfMatches(session: DashboardSession, given: string | undefined): boolean {
    const expected = Buffer.from(session.csrfToken);
    const actual = Buffer.from(given ?? '');
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  }
}

/** One daemon's tokens and sessions, in its memory only. */
export class MemorySessionRows implements SessionRows {
  /** sha256(token) -> expiry. */
  private readonly tokens = new Map<string, number>();
  /** sha256(session id) -> last request. */
  private readonly sessions = new Map<string, number>();

  putToken(tokenHash: string, expiresAt: number): void {
    bounded(this.tokens).set(tokenHash, expiresAt);
  }

  takeToken(tokenHash: string): number | undefined {
    const expiresAt = this.tokens.get(tokenHash);
    this.tokens.delete(tokenHash);
    return expiresAt;
  }

  putSession(sessionHash: string, lastSeenAt: number): void {
    bounded(this.sessions).set(sessionHash, lastSeenAt);
  }

  lastSeen(sessionHash: string): number | undefined {
    return this.sessions.get(sessionHash);
  }

  touch(sessionHash: string, at: number): void {
    if (this.sessions.has(sessionHash)) this.sessions.set(sessionHash, at);
  }

  deleteSession(sessionHash: string): void {
    this.sessions.delete(sessionHash);
  }

  sweep(now: number): void {
    for (const [key, expiresAt] of this.tokens) if (expiresAt <= now) this.tokens.delete(key);
  }
}

/**
 * The CSRF token of a session: an HMAC of a fixed text keyed by the session id, which only the
 * holder of the (HttpOnly) cookie knows; the same on every daemon, and stored nowhere.
 */
function csrfOf(sessionId: string): string {
  return createHmac('sha256', sessionId).update('svc dashboard csrf').digest('base64url');
}

function hash(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}

/** The map, with its oldest entry dropped when it is full (Maps keep insertion order). */
function bounded<V>(map: Map<string, V>): Map<string, V> {
  if (map.size >= MAX_ENTRIES) {
    const oldest = map.keys().next().value;
    if (oldest !== undefined) map.delete(oldest);
  }
  return map;
}
