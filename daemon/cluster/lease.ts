// The lease of a daemon on its sandbox (team mode): on real time, judged by the store's own
// clock (storeNowMs), never by the sandbox clock, which a frozen sandbox holds still.
import { createHash } from 'node:crypto';

/** A live daemon stamps its row this often. */
export const HEARTBEAT_MS = 2_000;
/** A daemon whose last heartbeat is older than this is lost. */
export const LEASE_MS = 8_000;
/**
 * The bound on a takeover: a daemon dies at most just after a heartbeat, is lost LEASE_MS after
 * it, and a survivor looks at the next of its own heartbeats, HEARTBEAT_MS at most later.
 */
export const TAKEOVER_BOUND_MS = LEASE_MS + HEARTBEAT_MS;
/** Rows of daemons that stopped or were lost stay listed this long (svc status), then go. */
export const GONE_KEPT_MS = 24 * 3_600_000;

/**
 * The name a daemon has in the sandbox's `daemons` table. The daemon id of daemon.json is the
 * key of its identity proof (shared/daemon-identity.ts) and must never leave the data dir, so
 * the table holds a digest of it: the same daemon, a name that proves nothing.
 */
export function memberId(daemonId: string): string {
  return (
    'dmn_' + createHash('sha256').update(`svc-daemon-member:${daemonId}`).digest('hex').slice(0, 24)
  );
}
