// Sandbox fault rules (svc faults): one row per rule, with the counters its decisions need.
import type { Db } from '../store/db.js';
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
  private readonly allStmt;
  private readonly deleteStmt;
  private readonly clearStmt;
  private readonly countersStmt;

  constructor(db: Db) {
    this.insertStmt = prepareInsert(
      db,
      'faults',
      'id, workspace_id, webhook_id, url_prefix, workflow_id, step_id, agent_id, attempts_from, attempts_to, rate, seed, times, match, status, timeout, latency_ms, reset, fail_code, seen, hits, created_at',
    );
    this.allStmt = db.prepare<[], FaultRow>('SELECT * FROM faults ORDER BY created_at, id');
    this.deleteStmt = db.prepare('DELETE FROM faults WHERE id = ? AND workspace_id = ?');
    this.clearStmt = db.prepare('DELETE FROM faults WHERE workspace_id = ?');
    this.countersStmt = db.prepare('UPDATE faults SET seen = ?, hits = ? WHERE id = ?');
  }

  insert(row: FaultRow): void {
    this.insertStmt.run(row);
  }

  /** Every rule of every workspace (the service keeps them in memory). */
  all(): FaultRow[] {
    return this.allStmt.all();
  }

  delete(workspaceId: string, id: string): boolean {
    return this.deleteStmt.run(id, workspaceId).changes > 0;
  }

  clear(workspaceId: string): number {
    return this.clearStmt.run(workspaceId).changes;
  }

  saveCounters(row: Pick<FaultRow, 'id' | 'seen' | 'hits'>): void {
    this.countersStmt.run(row.seen, row.hits, row.id);
  }
}
