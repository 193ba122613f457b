// Who may use the dashboard: one-time login tokens (minted over the control channel by
// `svc dashboard`) exchanged for a session, each with its CSRF token. Kept in the daemon's memory
// only: a restart logs everyone out, and nothing about them is ever stored. Times are real time,
// not the sandbox clock: advancing the clock a day from the dashboard must not log its user out.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A login token is valid this long, and once. */
export const LOGIN_TOKEN_TTL_MS = 5 * 60_000;
/** A session ends after this long without a request. */
export const SESSION_IDLE_MS = 12 * 3_600_000;
/** Tokens and sessions kept at most (oldest dropped first): a bound on memory. */
const MAX_ENTRIES = 1000;

export interface DashboardSession {
  /** Sent with every state-changing request (X-CSRF-Token), compared in constant time. */
  csrfToken: string;
  lastSeenAt: number;
}

export interface LoginToken {
  token: string;
  expiresAt: number;
}

export class DashboardSessions {
  /** sha256(token) -> expiry. Only hashes are kept, as for API keys. */
  private readonly tokens = new Map<string, number>();
  /** sha256(session id) -> session. */
  private readonly sessions = new Map<string, DashboardSession>();

  constructor(private readonly now: () => number = Date.now) {}

  mintLoginToken(): LoginToken {
    this.sweep();
    const token = randomBytes(32).toString('base64url');
    const expiresAt = this.now() + LOGIN_TOKEN_TTL_MS;
    bounded(this.tokens).set(hash(token), expiresAt);
    return { token, expiresAt };
  }

  /**
   * Exchanges a login token for a new session: the token is spent whatever happens next, so a
   * second use is refused. Undefined when the token is unknown, spent or expired.
   */
  redeem(token: string): { sessionId: string; session: DashboardSession } | undefined {
    const key = hash(token);
    const expiresAt = this.tokens.get(key);
    this.tokens.delete(key);
    if (expiresAt === undefined || expiresAt <= this.now()) return undefined;
    const sessionId = randomBytes(32).toString('base64url');
    const session: DashboardSession = {
      csrfToken: randomBytes(24).toString('base64url'),
      lastSeenAt: this.now(),
    };
    bounded(this.sessions).set(hash(sessionId), session);
    return { sessionId, session };
  }

  /** The live session of a cookie value; touching it keeps it alive. */
  session(sessionId: string | undefined): DashboardSession | undefined {
    if (!sessionId) return undefined;
    const key = hash(sessionId);
    const session = this.sessions.get(key);
    if (!session) return undefined;
    const now = this.now();
    if (now - session.lastSeenAt > SESSION_IDLE_MS) {
      this.sessions.delete(key);
      return undefined;
    }
    session.lastSeenAt = now;
    return session;
  }

  end(sessionId: string | undefined): void {
    if (sessionId) this.sessions.delete(hash(sessionId));
  }

  static csrfMatches(session: DashboardSession, given: string | undefined): boolean {
    const expected = Buffer.from(session.csrfToken);
    const actual = Buffer.from(given ?? '');
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  }

  private sweep(): void {
    const now = this.now();
    for (const [key, expiresAt] of this.tokens) if (expiresAt <= now) this.tokens.delete(key);
  }
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
