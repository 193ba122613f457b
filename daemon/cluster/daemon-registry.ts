// The daemons serving a sandbox (team mode, issue 54): each registers its row at start, stamps
// a heartbeat every HEARTBEAT_MS on PostgreSQL, and marks the row stopped on a clean stop. A
// daemon whose heartbeat is older than LEASE_MS (or that stopped) is taken over by exactly one
// survivor: the one whose conditional UPDATE sets taken_over_by. In that same transaction its
// timer claims are released and its step claims dropped; then the survivor runs what is due and
// resumes the unfinished runs (takeover callback). A daemon that finds itself taken over (a pause
// longer than the lease, PostgreSQL away) stops: its work belongs to another now.
//
// On SQLite there is one daemon (the data dir's lock): it registers and stops, no heartbeat; a
// row left running by a crash is marked lost by the next start, which the lock proves is alone.
import { hostname } from 'node:os';
import type { DaemonMemberView } from '../../shared/schemas/control-output.js';
import type { Db } from '../store/db.js';
import { storeKind } from '../store/db.js';
import { storeNowMs } from '../store/dialect.js';
import { GONE_KEPT_MS, HEARTBEAT_MS, LEASE_MS } from './lease.js';

export interface DaemonMember {
  id: string;
  address: string;
  host: string;
  pid: number;
  version: string;
  schema_version: number;
  started_at: number;
  heartbeat_at: number;
  stopped_at: number | null;
  lost_at: number | null;
  taken_over_by: string | null;
  /** Timers this daemon has claimed (running or about to). */
  claimed_timers: number;
  /** Runs with a step running on this daemon. */
  driven_runs: number;
  /** 1 when its heartbeat is within the lease (judged by the store). */
  fresh: number | boolean;
}

export interface RegistryLog {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface RegistryOptions {
  /** This daemon's name in the table (lease.ts memberId). */
  id: string;
  version: string;
  schemaVersion: number;
  log: RegistryLog;
}

export class DaemonRegistry {
  readonly id: string;
  /** More than one daemon may serve this sandbox (PostgreSQL). */
  readonly shared: boolean;
  private readonly statements;
  private heartbeat: NodeJS.Timeout | undefined;
  private joined = false;
  private address = '';
  private readonly takeoverListeners: ((lost: string[]) => void)[] = [];
  private readonly lostListeners: (() => void)[] = [];

  constructor(
    private readonly db: Db,
    private readonly options: RegistryOptions,
  ) {
    this.id = options.id;
    this.shared = storeKind(db) === 'postgres';
    const now = storeNowMs(db);
    // Lost: running and silent for longer than the lease; or stopped. Not yet taken over.
    const gone = `taken_over_by IS NULL AND (stopped_at IS NOT NULL OR heartbeat_at < ${now} - ?)`;
    this.statements = {
      join: db.prepare(
        `INSERT INTO daemons (id, address, host, pid, version, schema_version, started_at, heartbeat_at)
         VALUES (?, ?, ?, ?, ?, ?, ${now}, ${now})
         ON CONFLICT (id) DO UPDATE SET address = excluded.address, started_at = excluded.started_at,
           heartbeat_at = excluded.heartbeat_at, stopped_at = NULL, lost_at = NULL, taken_over_by = NULL`,
      ),
      // After svc state import|reset the sandbox's rows are the snapshot's: this one may be gone.
      exists: db.prepare<[string], string>('SELECT id FROM daemons WHERE id = ?').pluck(),
      forgetGone: db.prepare(
        `DELETE FROM daemons WHERE COALESCE(lost_at, stopped_at) < ${now} - ?`,
      ),
      // SQLite: the data dir's lock proves every other row's daemon is gone.
      takeAllOthers: db.prepare(
        `UPDATE daemons SET taken_over_by = ?, lost_at = CASE WHEN stopped_at IS NULL THEN ${now} ELSE NULL END
         WHERE id <> ? AND taken_over_by IS NULL`,
      ),
      beat: db.prepare(
        `UPDATE daemons SET heartbeat_at = ${now} WHERE id = ? AND taken_over_by IS NULL AND stopped_at IS NULL`,
      ),
      candidates: db
        .prepare<[string, number], string>(`SELECT id FROM daemons WHERE id <> ? AND ${gone}`)
        .pluck(),
      take: db.prepare(
        `UPDATE daemons SET taken_over_by = ?, lost_at = CASE WHEN stopped_at IS NULL THEN ${now} ELSE NULL END
         WHERE id = ? AND ${gone}`,
      ),
      releaseTimers: db.prepare('UPDATE timers SET claimed_by = NULL WHERE claimed_by = ?'),
      dropSteps: db.prepare('DELETE FROM run_step_claims WHERE daemon_id = ?'),
      stop: db.prepare(`UPDATE daemons SET stopped_at = ${now} WHERE id = ?`),
      housekeeper: db
        .prepare<[number], string>(
          `SELECT id FROM daemons WHERE stopped_at IS NULL AND taken_over_by IS NULL
             AND heartbeat_at >= ${now} - ? ORDER BY started_at, id LIMIT 1`,
        )
        .pluck(),
      othersLive: db
        .prepare<[string, number], string>(
          `SELECT id FROM daemons WHERE id <> ? AND stopped_at IS NULL AND taken_over_by IS NULL
             AND heartbeat_at >= ${now} - ? LIMIT 1`,
        )
        .pluck(),
      list: db.prepare<[number], DaemonMember>(
        `SELECT d.*, CASE WHEN d.heartbeat_at >= ${now} - ? THEN 1 ELSE 0 END AS fresh,
           (SELECT COUNT(*) FROM timers AS t WHERE t.claimed_by = d.id) AS claimed_timers,
           (SELECT COUNT(DISTINCT c.execution_id) FROM run_step_claims AS c WHERE c.daemon_id = d.id) AS driven_runs
         FROM daemons AS d ORDER BY d.started_at, d.id`,
      ),
    };
  }

  /** Hears the daemons this one took over (their work is released to it): resume their work. */
  onTakeover(listener: (lost: string[]) => void): void {
    this.takeoverListeners.push(listener);
  }

  /** Hears that this daemon was taken over by another: it must stop. */
  onLost(listener: () => void): void {
    this.lostListeners.push(listener);
  }

  /** Registers this daemon (once it listens at `address`) and starts its heartbeat. */
  join(address: string): void {
    this.address = address;
    this.register();
    this.joined = true;
    if (!this.shared) return;
    this.heartbeat = setInterval(() => this.beat(), HEARTBEAT_MS);
    this.heartbeat.unref();
    // Daemons that died before this one started are taken over at once if their lease ran out.
    this.takeOverLost();
  }

  /**
   * Stops the heartbeat, releases what this daemon holds and marks it stopped: a survivor takes
   * over its unfinished runs at its next heartbeat (their steps in flight here were left ready).
   */
  leave(): void {
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    if (!this.joined) return;
    this.joined = false;
    const s = this.statements;
    try {
      this.db.transaction(() => {
        s.releaseTimers.run(this.id);
        s.dropSteps.run(this.id);
        s.stop.run(this.id);
      })();
    } catch (error) {
      // The store is away: the lease runs out and a survivor takes the work over all the same.
      this.options.log.error({ err: error }, 'could not mark this daemon stopped in the sandbox');
    }
  }

  /**
   * Whether this daemon does the sandbox's housekeeping now: the oldest live daemon does (one at
   * a time; when it goes, the next oldest). Alone on SQLite, always.
   */
  isHousekeeper(): boolean {
    if (!this.shared) return true;
    return this.statements.housekeeper.get(LEASE_MS) === this.id;
  }

  /**
   * Whether another daemon serves the sandbox now (its lease runs): it has run all along, so
   * nothing fell due unseen. Never on SQLite (the data dir's lock: this daemon is alone).
   */
  othersLive(): boolean {
    if (!this.shared) return false;
    return this.statements.othersLive.get(this.id, LEASE_MS) !== undefined;
  }

  /** Every daemon of the sandbox, live or gone in the last day, with what each holds. */
  list(): DaemonMember[] {
    return this.statements.list.all(LEASE_MS);
  }

  /** list() as svc status shows it. */
  views(): DaemonMemberView[] {
    // Alone on SQLite: the rows of its earlier runs are history, not members.
    const rows = this.shared ? this.list() : this.list().filter((row) => row.id === this.id);
    return rows.map((row) => ({
      id: row.id,
      self: row.id === this.id,
      state:
        row.stopped_at !== null
          ? 'stopped'
          : row.taken_over_by !== null
            ? 'lost'
            : Number(row.fresh) === 1 || !this.shared
              ? 'live'
              : 'silent',
      address: row.address,
      host: row.host,
      pid: Number(row.pid),
      version: row.version,
      schema_version: Number(row.schema_version),
      started_at: iso(row.started_at),
      heartbeat_at: iso(row.heartbeat_at),
      stopped_at: row.stopped_at === null ? null : iso(row.stopped_at),
      lost_at: row.lost_at === null ? null : iso(row.lost_at),
      taken_over_by: row.taken_over_by,
      claimed_timers: Number(row.claimed_timers),
      driven_runs: Number(row.driven_runs),
    }));
  }

  private register(): void {
    const { statements: s, options } = this;
    this.db.transaction(() => {
      s.forgetGone.run(GONE_KEPT_MS);
      s.join.run(
        this.id,
        this.address,
        hostname(),
        process.pid,
        options.version,
        options.schemaVersion,
      );
      if (!this.shared) s.takeAllOthers.run(this.id, this.id);
    })();
  }

  /** One heartbeat: stamp this daemon's row, then take over any daemon whose lease ran out. */
  beat(): void {
    const s = this.statements;
    try {
      if (s.beat.run(this.id).changes === 0) {
        if (s.exists.get(this.id) === undefined) {
          // The sandbox was replaced under it (svc state import|reset on another daemon): rejoin.
          this.register();
          this.options.log.info(
            { daemon: this.id },
            'this daemon joined the replaced sandbox again',
          );
        } else {
          this.stopOnLost();
          return;
        }
      }
      this.takeOverLost();
    } catch (error) {
      this.options.log.error({ err: error }, 'daemon heartbeat failed; trying again');
    }
  }

  private stopOnLost(): void {
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    this.joined = false;
    this.options.log.error(
      { daemon: this.id },
      'this daemon was taken over by another (its heartbeat stopped for longer than the lease); it stops now: start it again to rejoin the sandbox',
    );
    for (const listener of this.lostListeners) listener();
  }

  /** Takes over each lost daemon this daemon wins (at most one survivor wins each). */
  private takeOverLost(): void {
    const s = this.statements;
    const won: string[] = [];
    for (const lost of s.candidates.all(this.id, LEASE_MS)) {
      const taken = this.db.transaction(() => {
        if (s.take.run(this.id, lost, LEASE_MS).changes === 0) return false;
        s.releaseTimers.run(lost);
        s.dropSteps.run(lost);
        return true;
      })();
      if (taken) won.push(lost);
    }
    if (won.length === 0) return;
    this.options.log.info(
      { daemons: won },
      'took over the work of daemons that stopped or were lost',
    );
    for (const listener of this.takeoverListeners) listener(won);
  }
}

function iso(ms: number | string): string {
  return new Date(Number(ms)).toISOString();
}
