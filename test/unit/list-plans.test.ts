// Lists stay fast however much is stored: every list query reads through an index in the list's
// order (EXPLAIN QUERY PLAN: no table scan, no sort), and the lists that grow without bound
// (events, runs, deliveries) take total_count from counters that match a COUNT(*) through
// inserts, status changes, deletes and retention.
import test from 'ava';
import { AgentRepository } from '../../daemon/agents/agent.repository.js';
import { KnowledgeRepository } from '../../daemon/agents/knowledge/knowledge.repository.js';
import { MessageRepository } from '../../daemon/agents/message.repository.js';
import { RunRepository, type RunRow } from '../../daemon/engine/run.repository.js';
import { EventRepository, type EventRow } from '../../daemon/events/event.repository.js';
import { ExecutionRepository } from '../../daemon/agents/execution.repository.js';
import { TriggerRepository } from '../../daemon/triggers/trigger.repository.js';
import { OAuthRepository } from '../../daemon/oauth/oauth.repository.js';
import { IntegrationRepository } from '../../daemon/integrations/integration.repository.js';
import { CommitQueue } from '../../daemon/store/commit-queue.js';
import { openDatabase } from '../../daemon/store/database.js';
import type { Db } from '../../daemon/store/db.js';
import { DeliveryRepository } from '../../daemon/webhooks/deliveries/delivery.repository.js';
import { WebhookRepository } from '../../daemon/webhooks/webhook.repository.js';
import { WorkflowRepository } from '../../daemon/workflows/workflow.repository.js';
import { prepared, preparedSelects, queryPlan as plan } from '../helpers/query-plans.js';

/** A migrated in-memory store whose rows need no parents (foreign keys off). */
function store(): Db {
  const db = openDatabase(':memory:');
  db.pragma('foreign_keys = OFF');
  return db;
}

test('every list query reads through an index in its order: no table scan, no sort', (t) => {
  const db = store();
  const commits = new CommitQueue(db);
  const page = { limit: 20 };
  // Built first: their constructors prepare other statements (inserts, search).
  const events = new EventRepository(db);
  const runs = new RunRepository(db);
  const deliveries = new DeliveryRepository(db);
  const agents = new AgentRepository(db, commits);
  const workflows = new WorkflowRepository(db, commits);
  const webhooks = new WebhookRepository(db);
  const integrations = new IntegrationRepository(db);
  const messages = new MessageRepository(db);
  const knowledge = new KnowledgeRepository(db);
  const lists: [string, () => unknown][] = [
    [
      'events',
      () => events.page({ workspaceId: 'ws', types: [], prefixes: [], since: 0, ...page }),
    ],
    [
      'events by type',
      () =>
        events.page({
          workspaceId: 'ws',
          types: ['agent.created'],
          prefixes: ['workflow.'],
          since: 0,
          ...page,
        }),
    ],
    ['runs', () => runs.page({ workflowId: 'wfl', since: 0, ...page })],
    ['runs by status', () => runs.page({ workflowId: 'wfl', status: 'failed', since: 0, ...page })],
    ['deliveries', () => deliveries.page({ webhookId: 'hook', ...page })],
    [
      'deliveries by status',
      () => deliveries.page({ webhookId: 'hook', status: 'failed', ...page }),
    ],
    ['agents', () => agents.page({ workspaceId: 'ws', status: 'active', ...page })],
    ['workflows', () => workflows.page({ workspaceId: 'ws', ...page })],
    ['webhooks', () => webhooks.page({ workspaceId: 'ws', ...page })],
    ['integrations', () => integrations.page({ workspaceId: 'ws', ...page })],
    ['messages', () => messages.page({ agentId: 'agt', ...page })],
    ['knowledge', () => knowledge.page({ agentId: 'agt', ...page })],
  ];

  for (const [name, list] of lists) {
    const selects = preparedSelects(db, list);
    t.true(selects.length > 0, `${name}: list statements prepared`);
    for (const sql of selects) {
      const details = plan(db, sql);
      const scans = details.filter((detail) => /^SCAN \w+$/.test(detail));
      const sorts = details.filter((detail) => detail.includes('TEMP B-TREE'));
      t.deepEqual(scans, [], `${name}: ${sql}\n${details.join('\n')}`);
      t.deepEqual(sorts, [], `${name}: ${sql}\n${details.join('\n')}`);
    }
  }
});

test("a webhook's pending deliveries are read from the status index alone", (t) => {
  const db = store();
  const [sql, ...others] = prepared(db, /status = 'pending'/, () => new DeliveryRepository(db));
  t.deepEqual(others, []);
  const details = plan(db, sql!);
  t.deepEqual(
    details,
    ['SEARCH deliveries USING COVERING INDEX deliveries_by_status (webhook_id=? AND status=?)'],
    `${sql}\n${details.join('\n')}`,
  );
});

test("a page's runs read their step rows and re-runs in one indexed read each", (t) => {
  const db = store();
  const batched = prepared(db, /json_each/, () => new RunRepository(db));
  t.is(batched.length, 2);
  for (const sql of batched) {
    const details = plan(db, sql);
    t.true(
      details.some((detail) => /^SEARCH workflow_(step_runs|executions) USING/.test(detail)),
      `${sql}\n${details.join('\n')}`,
    );
    t.deepEqual(
      details.filter((detail) => /^SCAN workflow_/.test(detail)),
      [],
      `${sql}\n${details.join('\n')}`,
    );
  }
});

test('retention deletes read through an index: no table scan, even when nothing expired', (t) => {
  const db = store();
  // Housekeeping runs them every minute on the thread that serves the API.
  const deletes = prepared(db, /^\s*DELETE\b[\s\S]*\b(created|expires)_at\s*</i, () => {
    new EventRepository(db);
    new ExecutionRepository(db);
    new RunRepository(db);
    new TriggerRepository(db);
    new OAuthRepository(db);
  });
  for (const table of [
    'events',
    'agent_executions',
    'workflow_executions',
    'workflow_step_runs',
    'event_triggered_runs',
    'oauth_codes',
    'oauth_tokens',
  ]) {
    t.true(
      deletes.some((sql) => sql.includes(`DELETE FROM ${table} `)),
      `a retention delete of ${table}`,
    );
  }
  // workflow_approvals holds only the approvals still awaited (decided ones are deleted), so
  // reading it whole costs nothing.
  for (const sql of deletes.filter((sql) => !sql.includes('DELETE FROM workflow_approvals '))) {
    const details = plan(db, sql);
    const scans = details.filter((detail) => /^SCAN \w+$/.test(detail));
    t.deepEqual(scans, [], `${sql}\n${details.join('\n')}`);
  }
});

function countRows(db: Db, sql: string, ...params: (string | number)[]): number {
  return (db.prepare(`SELECT COUNT(*) AS n FROM ${sql}`).get(...params) as { n: number }).n;
}

/** An event row as the event log inserts it (the repository counts it). */
function eventRow(values: Pick<EventRow, 'id' | 'workspace_id' | 'type' | 'created_at'>): EventRow {
  return { envelope: '{}', execution_id: null, ...values };
}

/** A run row as the engine inserts it (the repository counts it). */
function runRow(values: Pick<RunRow, 'id' | 'workflow_id' | 'status' | 'created_at'>): RunRow {
  return {
    workspace_id: 'ws',
    version: 1,
    trigger_type: 'manual',
    input: '{}',
    frontier: '{}',
    steps_completed: 0,
    result: null,
    error_code: null,
    error_message: null,
    failed_step: null,
    failed_agent_id: null,
    deadline_at: 0,
    completed_at: null,
    cancelled_at: null,
    rerun_of: null,
    from_step_id: null,
    real_started_at: null,
    real_ended_at: null,
    ...values,
  };
}

test('total_count of events, runs and deliveries comes from counters that match COUNT(*)', async (t) => {
  const db = store();
  const commits = new CommitQueue(db);
  const events = new EventRepository(db, commits);
  const runs = new RunRepository(db, commits);
  const deliveries = new DeliveryRepository(db, commits);
  const types = ['agent.created', 'agent.updated', 'workflow.execution.completed'];
  const statuses = ['running', 'completed', 'failed'] as const;
  const insert = (i: number) => {
    const created = 1_000 + i;
    const ws = i % 2 ? 'ws_a' : 'ws_b';
    events.insert(
      eventRow({ id: `evt_${i}`, workspace_id: ws, type: types[i % 3]!, created_at: created }),
    );
    runs.insert(
      runRow({
        id: `wex_${i}`,
        workflow_id: i % 2 ? 'wfl_a' : 'wfl_b',
        status: statuses[i % 3]!,
        created_at: created,
      }),
    );
    deliveries.insert({
      id: `del_${i}`,
      webhook_id: i % 2 ? 'hook_a' : 'hook_b',
      workspace_id: ws,
      event_id: `evt_${i}`,
      event_type: types[i % 3]!,
      body: '{}',
      created_at: created,
      next_attempt_at: created,
    });
  };
  // Inserts counted at once (a transaction of their own), and in group commits, where the
  // counts are added up and written before the commit: one group rolls back (a change
  // failed), its other changes are then committed one by one, and the failed one counts nothing.
  db.transaction(() => {
    for (let i = 0; i < 100; i += 1) insert(i);
  })();
  const grouped: Promise<unknown>[] = [];
  for (let i = 100; i < 300; i += 1) grouped.push(commits.run(() => insert(i)));
  const failing = commits.run(() => {
    insert(1_000);
    throw new Error('this change fails');
  });
  await Promise.all(grouped);
  await t.throwsAsync(failing, { message: 'this change fails' });
  t.is(countRows(db, 'events WHERE id = ?', 'evt_1000'), 0);
  // Status changes, through the repositories as the engine and the deliveries make them: at
  // once, in group commits (one rolled back), and from a stale status (a caller whose row is
  // behind the store: the counter moves from the status the row really had).
  const finishRun = (i: number) => {
    const row = runs.get(`wex_${i}`)!;
    runs.save({ ...row, status: 'completed', completed_at: 2_000 }, row.status);
  };
  const settleDelivery = (
    i: number,
    status: 'delivered' | 'failed',
    stored = 'pending' as const,
  ) => {
    const row = deliveries.get(`del_${i}`)!;
    deliveries.saveResult({ ...row, status, attempts: row.attempts + 1 }, stored);
  };
  const moves: Promise<unknown>[] = [];
  for (let i = 0; i < 300; i += 1) {
    const created = 1_000 + i;
    const apply = () => {
      if (created % 5 === 0 && statuses[i % 3] === 'running') finishRun(i);
      if (created % 4 === 0) settleDelivery(i, 'failed');
      if (created % 4 === 1) settleDelivery(i, 'delivered');
    };
    if (i < 150) db.transaction(apply)();
    else moves.push(commits.run(apply));
  }
  const failingMove = commits.run(() => {
    finishRun(2);
    settleDelivery(3, 'failed');
    throw new Error('this move fails');
  });
  await Promise.all(moves);
  await t.throwsAsync(failingMove, { message: 'this move fails' });
  t.is(runs.get('wex_2')!.status, 'failed');
  // del_4 and del_8 were failed above; a caller that read them as pending delivers them.
  await commits.run(() => settleDelivery(4, 'delivered'));
  db.transaction(() => settleDelivery(8, 'delivered'))();
  t.is(deliveries.get('del_4')!.status, 'delivered');
  db.prepare('DELETE FROM events WHERE created_at % 7 = 0').run();
  db.prepare('DELETE FROM workflow_executions WHERE created_at % 11 = 0').run();
  db.prepare('DELETE FROM deliveries WHERE created_at % 13 = 0').run();
  const since = 1_100;
  const page = { limit: 5 };

  for (const ws of ['ws_a', 'ws_b', 'ws_none']) {
    t.is(
      events.page({ workspaceId: ws, types: [], prefixes: [], since, ...page }).totalCount,
      countRows(db, 'events WHERE workspace_id = ? AND created_at >= ?', ws, since),
    );
    t.is(
      events.page({
        workspaceId: ws,
        types: ['agent.created'],
        prefixes: ['workflow.'],
        since,
        ...page,
      }).totalCount,
      countRows(
        db,
        "events WHERE workspace_id = ? AND created_at >= ? AND (type = 'agent.created' OR type LIKE 'workflow.%')",
        ws,
        since,
      ),
    );
  }
  for (const workflowId of ['wfl_a', 'wfl_b']) {
    t.is(
      runs.page({ workflowId, since, ...page }).totalCount,
      countRows(
        db,
        'workflow_executions WHERE workflow_id = ? AND created_at >= ?',
        workflowId,
        since,
      ),
    );
    for (const status of statuses)
      t.is(
        runs.page({ workflowId, status, since, ...page }).totalCount,
        countRows(
          db,
          'workflow_executions WHERE workflow_id = ? AND status = ? AND created_at >= ?',
          workflowId,
          status,
          since,
        ),
      );
  }
  for (const webhookId of ['hook_a', 'hook_b']) {
    t.is(
      deliveries.page({ webhookId, ...page }).totalCount,
      countRows(db, 'deliveries WHERE webhook_id = ?', webhookId),
    );
    for (const status of ['pending', 'delivered', 'failed'])
      t.is(
        deliveries.page({ webhookId, status, ...page }).totalCount,
        countRows(db, 'deliveries WHERE webhook_id = ? AND status = ?', webhookId, status),
      );
  }
});

test('the events purge removes what is past retention in every workspace, and only that', (t) => {
  const db = store();
  const events = new EventRepository(db);
  const workspaces = ['ws_a', 'ws_b', 'ws_c'];
  for (let i = 0; i < 60; i += 1) {
    events.insert(
      eventRow({
        id: `evt_${i}`,
        workspace_id: workspaces[i % 3]!,
        type: i % 2 ? 'agent.created' : 'agent.updated',
        created_at: 1_000 + i,
      }),
    );
  }
  t.is(events.purgeBefore(1_030), 30);
  t.is(countRows(db, 'events WHERE created_at < 1030'), 0);
  t.is(countRows(db, 'events'), 30);
  for (const ws of workspaces) {
    t.is(
      events.page({ workspaceId: ws, types: [], prefixes: [], since: 0, limit: 5 }).totalCount,
      countRows(db, 'events WHERE workspace_id = ?', ws),
      `${ws}: the counters follow the purge`,
    );
  }
  t.is(events.purgeBefore(1_030), 0, 'nothing left to purge');
});
