// The Events list filtered by one type reads that type's rows only, newest first (migration 21,
// events_by_type): with 1,000,000 events and none of the type, the filter had read them all
// (5 s in bench/cases/dashboard.ts). Checked on the statement the repository prepares.
import test from 'ava';
import { EventRepository } from '../../daemon/events/event.repository.js';
import { openDatabase, type Db } from '../../daemon/store/database.js';

/** The SELECTs on events the repository prepares while `work` runs. */
function preparedSelects(db: Db, work: () => void): string[] {
  const seen: string[] = [];
  const prepare = db.prepare.bind(db);
  db.prepare = ((sql: string) => {
    if (/^\s*SELECT[\s\S]*FROM events\b/i.test(sql)) seen.push(sql);
    return prepare(sql);
  }) as Db['prepare'];
  try {
    work();
  } finally {
    db.prepare = prepare as Db['prepare'];
  }
  return seen;
}

test('a filter on one event type searches events_by_type in the list order: no scan, no sort', (t) => {
  const db = openDatabase(':memory:');
  const events = new EventRepository(db);
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
