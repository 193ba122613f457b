// A long agent execution input is stored once by its content (issue 51, row 4; migration 25):
// executions with the same long input share one row of shared_texts, every read gives the input
// whole (one execution, a page, the unfinished ones), short inputs stay in their row, a text
// written in a transaction that rolls back is gone with it (and written again by the next try),
// and the purge of old executions takes the texts no execution refers to any more.
import test from 'ava';
import {
  ExecutionRepository,
  type ExecutionRow,
} from '../../daemon/agents/execution.repository.js';
import type { Db } from '../../daemon/store/db.js';
import { openDatabase } from '../../daemon/store/database.js';
import { SHARED_TEXT_MIN_CHARS } from '../../daemon/store/shared-texts.js';

const AGENT = 'agt_shared';

function store(): Db {
  const db = openDatabase(':memory:');
  db.pragma('foreign_keys = OFF');
  return db;
}

function row(id: string, input: string, createdAt: number): ExecutionRow {
  return {
    id,
    agent_id: AGENT,
    workspace_id: 'ws',
    status: 'processing',
    autonomy_level: 'L3',
    input,
    context: '{}',
    action: null,
    output: null,
    confidence: null,
    error_code: null,
    error_message: null,
    execution_time_ms: null,
    needed_approval: 0,
    decision: null,
    decision_notes: null,
    created_at: createdAt,
    completed_at: null,
    decided_at: null,
    injected_fault: null,
  };
}

const count = (db: Db, sql: string) => db.prepare(sql).pluck().get() as number;

test('executions with one long input share one stored copy; every read gives it whole', (t) => {
  const db = store();
  const repo = new ExecutionRepository(db);
  const long = 'x'.repeat(900_000);
  const short = 'y'.repeat(SHARED_TEXT_MIN_CHARS - 1);
  for (let i = 0; i < 50; i++) repo.insert(row(`exe_${i}`, long, i));
  repo.insert(row('exe_short', short, 100));

  t.is(count(db, 'SELECT COUNT(*) FROM shared_texts'), 1);
  t.is(count(db, 'SELECT SUM(length(body)) FROM shared_texts'), long.length);
  t.is(count(db, "SELECT COUNT(*) FROM agent_executions WHERE input = ''"), 50);
  t.is(
    count(db, "SELECT length(input) FROM agent_executions WHERE id = 'exe_short'"),
    short.length,
  );

  t.is(repo.get('exe_7')!.input, long);
  t.false('input_digest' in repo.get('exe_7')!, 'the row the services see is unchanged');
  t.is(repo.get('exe_short')!.input, short);
  t.is(repo.latestOf(AGENT)!.input, short);
  const page = repo.ofAgent({ agentId: AGENT, awaiting: false, limit: 5 });
  t.deepEqual(
    page.items.map((item) => item.input.length),
    [short.length, long.length, long.length, long.length, long.length],
  );
  t.true(repo.unfinishedOf(AGENT).every((item) => item.input === long || item.input === short));
});

test('a text written in a transaction that rolls back is written again by the next try', (t) => {
  const db = store();
  const repo = new ExecutionRepository(db);
  const long = 'z'.repeat(10_000);
  t.throws(() =>
    db.transaction(() => {
      repo.insert(row('exe_a', long, 1));
      throw new Error('the group rolled back');
    })(),
  );
  t.is(count(db, 'SELECT COUNT(*) FROM shared_texts'), 0);
  // The same text again (its digest is remembered): the store, not memory, says it is missing.
  db.transaction(() => repo.insert(row('exe_a', long, 1)))();
  t.is(repo.get('exe_a')!.input, long);
});

test('the purge of old executions takes the texts no execution refers to', (t) => {
  const db = store();
  const repo = new ExecutionRepository(db);
  const old = 'o'.repeat(5_000);
  const kept = 'k'.repeat(5_000);
  repo.insert(row('exe_old_1', old, 1));
  repo.insert(row('exe_old_2', old, 2));
  repo.insert(row('exe_both_old', kept, 3));
  repo.insert(row('exe_both_new', kept, 100));
  t.is(count(db, 'SELECT COUNT(*) FROM shared_texts'), 2);

  t.is(repo.purgeBefore(50), 3);
  t.is(count(db, 'SELECT COUNT(*) FROM shared_texts'), 1);
  t.is(repo.get('exe_both_new')!.input, kept);
});
