// An agent's executions on the dashboard's agent page stay fast however many are stored: the
// pages (newest first, after a cursor) and the ones awaiting approval are read through an index
// in the list's order (migration 21), a page after a cursor from the cursor on (a row value),
// and with 100,000 executions of one agent each page is read at once, in order, without
// repeating a row.
import test from 'ava';
import { performance } from 'node:perf_hooks';
import {
  ExecutionRepository,
  type ExecutionRow,
} from '../../daemon/agents/execution.repository.js';
import { openDatabase } from '../../daemon/store/database.js';
import type { Db } from '../../daemon/store/db.js';
import { preparedSelects, queryPlan as plan } from '../helpers/query-plans.js';

const AGENT = 'agt_busy';
const TOTAL = 100_000;
const AWAITING = 10;

function store(): Db {
  const db = openDatabase(':memory:');
  db.pragma('foreign_keys = OFF');
  return db;
}

function row(id: string, createdAt: number, status: ExecutionRow['status']): ExecutionRow {
  return {
    id,
    agent_id: AGENT,
    workspace_id: 'ws',
    status,
    autonomy_level: 'L3',
    input: `question ${id}`,
    context: '{}',
    action: 'answer_question',
    output: 'An answer',
    confidence: 0.8,
    error_code: null,
    error_message: null,
    execution_time_ms: 12,
    needed_approval: status === 'awaiting_approval' ? 1 : 0,
    decision: null,
    decision_notes: null,
    created_at: createdAt,
    completed_at: status === 'completed' ? createdAt : null,
    decided_at: null,
    injected_fault: null,
  };
}

test("an agent's execution pages read through an index in order: no scan, no sort", (t) => {
  const db = store();
  const repo = new ExecutionRepository(db);
  db.prepare(
    "INSERT INTO agent_executions (id, agent_id, workspace_id, status, autonomy_level, input, context, created_at) VALUES ('exec_a', ?, 'ws', 'completed', 'L3', '', '{}', 1)",
  ).run(AGENT);
  const selects = preparedSelects(db, () => {
    repo.ofAgent({ agentId: AGENT, awaiting: false, limit: 20 });
    repo.ofAgent({ agentId: AGENT, awaiting: false, limit: 20, starting_after: 'exec_a' });
    repo.ofAgent({ agentId: AGENT, awaiting: true, limit: 20 });
  });
  t.true(selects.length >= 3, selects.join('\n'));
  for (const sql of selects) {
    const details = plan(db, sql);
    const text = `${sql}\n${details.join('\n')}`;
    t.deepEqual(
      details.filter((detail) => /^SCAN \w+$/.test(detail)),
      [],
      text,
    );
    t.deepEqual(
      details.filter((detail) => detail.includes('TEMP B-TREE')),
      [],
      text,
    );
    // A page after a cursor starts at the cursor in the index, not at the list's first row.
    if (sql.includes('(created_at, id) <')) {
      t.true(
        details.some((detail) => detail.includes('(created_at,id)<(?,?)')),
        text,
      );
    }
    if (sql.includes("status = 'awaiting_approval'") && !sql.includes('WHERE id = ?')) {
      t.true(
        details.some((detail) => detail.includes('agent_executions_awaiting_by_agent')),
        text,
      );
    }
  }
});

test('100,000 executions of one agent: each page at once, newest first, no row twice', (t) => {
  const db = store();
  const repo = new ExecutionRepository(db);
  // Ten executions share each millisecond: the id breaks the ties, as the cursor does.
  const insert = db.transaction(() => {
    for (let i = 0; i < TOTAL; i += 1) {
      const id = `exec_${String(i).padStart(6, '0')}`;
      repo.insert(
        row(
          id,
          1_000_000 + Math.floor(i / 10),
          i % 10_000 === 0 ? 'awaiting_approval' : 'completed',
        ),
      );
    }
  });
  insert();
  const timed = <T>(what: string, work: () => T): T => {
    const started = performance.now();
    const result = work();
    const ms = performance.now() - started;
    // Logged, not asserted: a loaded machine's figure says nothing of the code; the plans
    // below (no scan, no sort) are what keeps a page cheap at any size.
    t.log(`${what}: ${ms.toFixed(1)} ms`);
    return result;
  };

  const first = timed('first page', () =>
    repo.ofAgent({ agentId: AGENT, awaiting: false, limit: 20 }),
  );
  t.is(first.totalCount, TOTAL);
  t.true(first.hasMore);
  t.deepEqual(
    first.items.map((item) => item.id),
    Array.from({ length: 20 }, (_, n) => `exec_${String(TOTAL - 1 - n).padStart(6, '0')}`),
  );
  const seen = new Set(first.items.map((item) => item.id));
  let cursor = first.items.at(-1)!.id;
  for (let n = 0; n < 3; n += 1) {
    const next = timed(`page ${n + 2}`, () =>
      repo.ofAgent({ agentId: AGENT, awaiting: false, limit: 20, starting_after: cursor }),
    );
    for (const item of next.items) {
      t.false(seen.has(item.id), `${item.id} came twice`);
      seen.add(item.id);
    }
    cursor = next.items.at(-1)!.id;
  }
  t.is(seen.size, 80);
  const deep = timed('a page after the 90,000th', () =>
    repo.ofAgent({ agentId: AGENT, awaiting: false, limit: 20, starting_after: 'exec_010000' }),
  );
  t.is(deep.items[0]!.id, 'exec_009999');

  const awaiting = timed('awaiting approval', () =>
    repo.ofAgent({ agentId: AGENT, awaiting: true, limit: 20 }),
  );
  t.is(awaiting.totalCount, AWAITING);
  t.deepEqual(
    awaiting.items.map((item) => item.id),
    Array.from(
      { length: AWAITING },
      (_, n) => `exec_${String((AWAITING - 1 - n) * 10_000).padStart(6, '0')}`,
    ),
  );
  t.is(timed('newest execution', () => repo.latestOf(AGENT))?.id, 'exec_099999');
});
