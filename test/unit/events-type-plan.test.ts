// The Events list filtered by types or prefixes reads only what it covers, newest first (migration 24,
// events_by_type): with 1,000,000 events and none of the type, the filter had read them all
// (5 s in bench/cases/dashboard.ts). Checked on the statement the repository prepares.
import test from 'ava';
import { EventRepository } from '../../daemon/events/event.repository.js';
import { openDatabase } from '../../daemon/store/database.js';
import type { Db } from '../../daemon/store/db.js';
import { prepared } from '../helpers/query-plans.js';

/** The SELECTs on events the repository prepares while `work` runs. */
const preparedSelects = (db: Db, work: () => void) =>
  prepared(db, /^\s*SELECT[\s\S]*FROM events\b/i, work);

test('a filter on one event type searches events_by_type in the list order: no scan, no sort', (t) => {
  const db = openDatabase(':memory:');
  const events = new EventRepository(db);
  events.insert({
    id: 'evt_1',
    workspace_id: 'ws',
    type: 'integration.error',
    execution_id: null,
    created_at: 1,
    envelope: '{}',
  });
  const selects = preparedSelects(db, () =>
    events.page({
      workspaceId: 'ws',
      types: ['integration.error'],
      prefixes: [],
      since: 0,
      limit: 30,
    }),
  );
  const list = selects.filter((sql) => /ORDER BY/i.test(sql));
  t.is(list.length, 1, selects.join('\n'));
  const params = new Array<null>(list[0]!.split('?').length - 1).fill(null);
  const details = (
    db.prepare(`EXPLAIN QUERY PLAN ${list[0]}`).all(...params) as { detail: string }[]
  ).map((row) => row.detail);
  t.log(details.join('\n'));
  t.true(
    details.some((detail) =>
      /USING INDEX events_by_type \(workspace_id=\? AND type=\?/.test(detail),
    ),
    details.join('\n'),
  );
  t.false(
    details.some((detail) => detail.includes('TEMP B-TREE')),
    details.join('\n'),
  );
});

/** A store with events of three families, one a second apart, in the workspace `ws`. */
function storeWith(counts: Record<string, number>) {
  const db = openDatabase(':memory:');
  const events = new EventRepository(db);
  let at = 1_000_000;
  let serial = 0;
  db.transaction(() => {
    for (const [type, count] of Object.entries(counts)) {
      for (let i = 0; i < count; i++) {
        const id = `evt_${String(++serial).padStart(6, '0')}`;
        at += 1000;
        events.insert({
          id,
          workspace_id: 'ws',
          type,
          created_at: at,
          execution_id: null,
          envelope: `"${id}"`,
        });
      }
    }
  })();
  return { db, events };
}

/** The ids of one page of `filter`, newest first. */
function ids(
  events: EventRepository,
  filter: { types?: string[]; prefixes?: string[]; limit?: number; starting_after?: string },
): { ids: string[]; hasMore: boolean; total: number } {
  const page = events.page({
    workspaceId: 'ws',
    types: filter.types ?? [],
    prefixes: filter.prefixes ?? [],
    since: 0,
    limit: filter.limit ?? 50,
    starting_after: filter.starting_after,
  });
  return {
    ids: page.items.map((item) => JSON.parse(item.envelope) as string),
    hasMore: page.hasMore,
    total: page.totalCount,
  };
}

test('types and prefixes list what they cover, newest first, page by page; none stored is empty', (t) => {
  // Oldest first: 3 agent.created (1-3), 2 integration.error (4-5), 5 workflow (6-10).
  const { events } = storeWith({
    'agent.created': 3,
    'integration.error': 2,
    'workflow.execution.completed': 5,
  });
  t.deepEqual(ids(events, { prefixes: ['integration.'] }).ids, ['evt_000005', 'evt_000004']);
  const mixed = ids(events, { types: ['agent.created'], prefixes: ['integration.'], limit: 3 });
  t.deepEqual(mixed, { ids: ['evt_000005', 'evt_000004', 'evt_000003'], hasMore: true, total: 5 });
  const next = ids(events, {
    types: ['agent.created'],
    prefixes: ['integration.'],
    limit: 3,
    starting_after: 'evt_000003',
  });
  t.deepEqual(next.ids, ['evt_000002', 'evt_000001']);
  t.false(next.hasMore);
  t.deepEqual(ids(events, { prefixes: ['agent.execution.'] }), {
    ids: [],
    hasMore: false,
    total: 0,
  });
  t.deepEqual(ids(events, { types: ['workflow.deleted'] }).ids, []);
  t.is(ids(events, {}).ids.length, 10);
});

test('many events of several types are found newest first through the workspace index', (t) => {
  // Past the few that are read by type and sorted: the list walks the log newest first.
  const { db, events } = storeWith({
    'workflow.execution.started': 6_000,
    'workflow.execution.completed': 6_000,
    'agent.created': 1,
  });
  const plans = preparedSelects(db, () =>
    t.deepEqual(ids(events, { prefixes: ['workflow.'], limit: 3 }).ids, [
      'evt_012000',
      'evt_011999',
      'evt_011998',
    ]),
  )
    .filter((sql) => /ORDER BY/i.test(sql))
    .flatMap((sql) => {
      const params = new Array<null>(sql.split('?').length - 1).fill(null);
      return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map(
        (row) => row.detail,
      );
    });
  t.log(plans.join('\n'));
  t.true(plans.some((detail) => detail.includes('USING INDEX events_by_workspace')));
  t.false(
    plans.some((detail) => detail.includes('TEMP B-TREE')),
    plans.join('\n'),
  );
  t.deepEqual(ids(events, { prefixes: ['agent.'] }).ids, ['evt_012001']);
});
