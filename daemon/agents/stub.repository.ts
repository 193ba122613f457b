// Sandbox stubs: "when an agent's input matches, answer this / fail / take this long".
import type { Db } from '../store/db.js';
import { prepareInsert } from '../store/object-rows.js';

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

  constructor(db: Db) {
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
