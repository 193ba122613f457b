// Sandbox fault rules (svc faults): one row per rule, with the counters its decisions need.
// The counters are the store's: a decision reads them locked and writes them in one transaction,
// so daemons that share the sandbox (team mode) count each call once and a --times limit holds
// across them.
import type { Db } from '../store/db.js';
import { forUpdate } from '../store/dialect.js';
import { prepareInsert } from '../store/object-rows.js';

export interface FaultRow {
  id: string;
  workspace_id: string;
  webhook_id: string | null;
  url_prefix: string | null;
  workflow_id: string | null;
  step_id: string | null;
  agent_id: string | null;
  attempts_from: number | null;
  attempts_to: number | null;
  rate: number | null;
  seed: number | null;
  times: number | null;
  match: string | null;
  status: number | null;
  timeout: number;
  latency_ms: number | null;
  reset: number;
  fail_code: string | null;
  seen: number;
  hits: number;
  created_at: number;
}

export class FaultRepository {
  private readonly insertStmt;
  private readonly ofWorkspaceStmt;
  private readonly getStmt;
  private readonly lockedStmt;
  private readonly deleteStmt;
  private readonly clearStmt;
  private readonly countersStmt;
  private readonly counted;

  constructor(db: Db) {
    this.insertStmt = prepareInsert(
      db,
      'faults',
      'id, workspace_id, webhook_id, url_prefix, workflow_id, step_id, agent_id, attempts_from, attempts_to, rate, seed, times, match, status, timeout, latency_ms, reset, fail_code, seen, hits, created_at',
    );
    this.ofWorkspaceStmt = db.prepare<[string], FaultRow>(
      'SELECT * FROM faults WHERE workspace_id = ? ORDER BY created_at, id',
    );
    this.getStmt = db.prepare<[string, string], FaultRow>(
      'SELECT * FROM faults WHERE id = ? AND workspace_id = ?',
    );
    this.lockedStmt = db.prepare<[string], Pick<FaultRow, 'seen' | 'hits'>>(
      `SELECT seen, hits FROM faults WHERE id = ? ${forUpdate(db)}`,
    );
    this.deleteStmt = db.prepare('DELETE FROM faults WHERE id = ? AND workspace_id = ?');
    this.clearStmt = db.prepare('DELETE FROM faults WHERE workspace_id = ?');
    this.countersStmt = db.prepare('UPDATE faults SET seen = ?, hits = ? WHERE id = ?');
    this.counted = db.transaction(
      <T extends { seen: number; hits: number }>(
        row: FaultRow,
        decide: (stored: FaultRow) => T | undefined,
      ): T | undefined => {
        const counters = this.lockedStmt.get(row.id);
        // Removed meanwhile (on another daemon, whose notice is on its way): decides nothing.
        if (!counters) return undefined;
        row.seen = counters.seen;
        row.hits = counters.hits;
        const decision = decide(row);
        if (!decision) return undefined;
        this.countersStmt.run(decision.seen, decision.hits, row.id);
        row.seen = decision.seen;
        row.hits = decision.hits;
        return decision;
      },
    );
  }

  insert(row: FaultRow): void {
    this.insertStmt.run(row);
  }

  /** A workspace's rules in creation order (the first rule that hits a call wins). */
  ofWorkspace(workspaceId: string): FaultRow[] {
    return this.ofWorkspaceStmt.all(workspaceId);
  }

  get(workspaceId: string, id: string): FaultRow | undefined {
    return this.getStmt.get(id, workspaceId);
  }

  delete(workspaceId: string, id: string): boolean {
    return this.deleteStmt.run(id, workspaceId).changes > 0;
  }

  clear(workspaceId: string): number {
    return this.clearStmt.run(workspaceId).changes;
  }

  /**
   * One decision on `row`, counted in the store: `decide` is given the row with its counters as
   * stored now (locked until the transaction ends), and the counters it answers are stored and
   * set on `row`. Undefined when it decides nothing or the rule is gone.
   */
  count<T extends { seen: number; hits: number }>(
    row: FaultRow,
    decide: (stored: FaultRow) => T | undefined,
  ): T | undefined {
    return this.counted(row, decide) as T | undefined;
  }
}
