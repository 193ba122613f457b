// Sandbox stubs: "when an agent's input matches, answer this / fail / take this long".
import type { Db } from '../store/db.js';
import { prepareInsert } from '../store/object-rows.js';
import { cacheRows } from '../store/row-cache.js';

export interface StubRow {
  id: string;
  agent_id: string;
  match: string;
  result: string | null;
  fail_code: string | null;
  delay_ms: number | null;
  created_at: number;
}

export class StubRepository {
  private readonly insertStmt;
  private readonly listStmt;
  private readonly clearStmt;
  /**
   * Whether this daemon is the store's one writer (SQLite), so that the stubs it read stay the
   * agent's until it writes them itself; false in team mode, where other daemons add and clear.
   */
  readonly keepsRows: boolean;

  constructor(db: Db) {
    this.keepsRows = cacheRows(db);
    this.insertStmt = prepareInsert(
      db,
      'agent_stubs',
      'id, agent_id, match, result, fail_code, delay_ms, created_at',
    );
    this.listStmt = db.prepare<[string], StubRow>(
      'SELECT * FROM agent_stubs WHERE agent_id = ? ORDER BY created_at, id',
    );
    this.clearStmt = db.prepare('DELETE FROM agent_stubs WHERE agent_id = ?');
  }

  insert(row: StubRow): void {
    this.insertStmt.run(row);
  }

  list(agentId: string): StubRow[] {
    return this.listStmt.all(agentId);
  }

  clear(agentId: string): number {
    return this.clearStmt.run(agentId).changes;
  }
}
