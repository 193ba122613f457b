// Which daemon runs a step attempt of a run (team mode). Any daemon may commit a run's
// transition (a wait's timer fired where it was claimed, an approval given on another daemon),
// and the one that commits it starts what became ready (engine/driver.ts pump). Two daemons may
// pump one run at once: a step attempt starts only where its claim row was inserted, and only if
// the run's state is still the one that daemon read (a stale read claims nothing; the daemon that
// changed the state pumps it). The claim goes in the transaction that stores the attempt's
// outcome, or is released when the attempt ends without one (a stop, a store error); a lost
// daemon's claims are dropped by the survivor that takes it over, which then resumes its runs.
//
// SQLite has one daemon: no claim is written (NO_STEP_CLAIMS), the single-daemon path as before.
import { storeKind, type Db } from '../store/db.js';
import { storeNowMs } from '../store/dialect.js';

export interface StepClaims {
  /** Whether this daemon may start the attempt (claimed now); `frontier` is the state it read. */
  claim(executionId: string, key: string, attempt: number, frontier: string): boolean;
  /** In the transaction that stores the attempt's outcome: the claim is done with. */
  settle(executionId: string, key: string, attempt: number): void;
  /** The attempt ended without an outcome stored: another daemon may start it. */
  release(executionId: string, key: string, attempt: number): void;
}

export const NO_STEP_CLAIMS: StepClaims = {
  claim: () => true,
  settle: () => undefined,
  release: () => undefined,
};

export function stepClaims(db: Db, daemonId: string): StepClaims {
  if (storeKind(db) === 'sqlite') return NO_STEP_CLAIMS;
  const claim = db.prepare(
    `INSERT INTO run_step_claims (execution_id, act_key, attempt, daemon_id, claimed_at)
     SELECT id, ?, ?, ?, ${storeNowMs(db)} FROM workflow_executions WHERE id = ? AND frontier = ?
     ON CONFLICT (execution_id, act_key, attempt) DO NOTHING`,
  );
  const drop = db.prepare(
    'DELETE FROM run_step_claims WHERE execution_id = ? AND act_key = ? AND attempt = ? AND daemon_id = ?',
  );
  return {
    claim: (executionId, key, attempt, frontier) =>
      claim.run(key, attempt, daemonId, executionId, frontier).changes === 1,
    settle: (executionId, key, attempt) => void drop.run(executionId, key, attempt, daemonId),
    release: (executionId, key, attempt) => void drop.run(executionId, key, attempt, daemonId),
  };
}
