// A run's event history reads the run's own events and their deliveries through their indexes
// (events_by_execution, deliveries_by_event), in the run's order, whatever else is stored: no
// scan of the events or deliveries, no sort. The run's events come back in the order published,
// events of one millisecond included. Events stored before the history existed join their run's.
import test from 'ava';
import { EventRepository } from '../../daemon/events/event.repository.js';
import { migrate, openDatabase } from '../../daemon/store/database.js';
import type { Db } from '../../daemon/store/db.js';
import { MIGRATIONS } from '../../daemon/store/migrations.js';
import { DeliveryRepository } from '../../daemon/webhooks/deliveries/delivery.repository.js';
import { prepared, queryPlan } from '../helpers/query-plans.js';

function store(): Db {
  const db = openDatabase(':memory:');
  db.pragma('foreign_keys = OFF');
  return db;
}

/** The query plan of every statement `work` runs whose SQL matches `sql`. */
function plans(db: Db, sql: RegExp, work: () => void): string[][] {
  return prepared(db, sql, work).map((text) => queryPlan(db, text));
}

test("a run's events and their deliveries are read through their indexes, unsorted", (t) => {
  const db = store();
  const [events] = plans(db, /WHERE execution_id = \?/, () => new EventRepository(db));
  t.truthy(events, 'the history statement is prepared');
  t.true(
    events!.some((line) => line.includes('USING INDEX events_by_execution')),
    events!.join('\n'),
  );
  t.false(
    events!.some((line) => /^SCAN|TEMP B-TREE/.test(line)),
    events!.join('\n'),
  );
  const [deliveries] = plans(db, /WHERE event_id IN/, () => new DeliveryRepository(db));
  t.truthy(deliveries, 'the deliveries statement is prepared');
  t.true(
    deliveries!.some((line) => line.includes('USING INDEX deliveries_by_event')),
    deliveries!.join('\n'),
  );
  t.false(
    deliveries!.some((line) => /^SCAN deliveries/.test(line)),
    deliveries!.join('\n'),
  );
});

test("a run's events come in the order stored, by pages, and no other run's", (t) => {
  const db = store();
  const repo = new EventRepository(db);
  const insert = (id: string, run: string | null, at: number) =>
    repo.insert({
      id,
      workspace_id: 'ws',
      type: run ? 'workflow.execution.step_completed' : 'agent.created',
      created_at: at,
      execution_id: run,
      envelope: JSON.stringify({ id }),
    });
  // Ids that sort against the order published, within one millisecond.
  insert('evt_z', 'wex_a', 1000);
  insert('evt_y', 'wex_b', 1000);
  insert('evt_x', 'wex_a', 1000);
  insert('evt_w', null, 1000);
  insert('evt_a', 'wex_a', 1001);
  const ids = (rows: { envelope: string }[] | undefined) =>
    rows!.map((row) => (JSON.parse(row.envelope) as { id: string }).id);
  t.deepEqual(ids(repo.ofRun('ws', 'wex_a', 0, 10)), ['evt_z', 'evt_x', 'evt_a']);
  t.deepEqual(ids(repo.ofRun('ws', 'wex_a', 0, 1, 'evt_z')), ['evt_x']);
  t.deepEqual(ids(repo.ofRun('ws', 'wex_a', 0, 10, 'evt_x')), ['evt_a']);
  t.deepEqual(ids(repo.ofRun('ws', 'wex_a', 1001, 10)), ['evt_a'], 'retention cut');
  t.deepEqual(ids(repo.ofRun('other_ws', 'wex_a', 0, 10)), [], "another workspace's");
  t.is(repo.ofRun('ws', 'wex_a', 0, 10, 'evt_y'), undefined, "a cursor of another run's event");
});

test('events stored before version 21 join their run, from their envelope', (t) => {
  const db = openDatabase(
    ':memory:',
    MIGRATIONS.filter((migration) => migration.version < 21),
  );
  const insert = db.prepare(
    'INSERT INTO events (id, workspace_id, type, created_at, envelope) VALUES (?, ?, ?, ?, ?)',
  );
  const envelope = (type: string, data: object) => JSON.stringify({ type, data });
  insert.run(
    'evt_1',
    'ws',
    'workflow.execution.started',
    1,
    envelope('x', { execution_id: 'wex_1' }),
  );
  insert.run(
    'evt_2',
    'ws',
    'agent.execution.started',
    2,
    envelope('x', { execution_id: 'exec_1' }),
  );
  insert.run('evt_3', 'ws', 'workflow.created', 3, envelope('x', { id: 'wfl_1' }));
  migrate(db, MIGRATIONS);
  t.deepEqual(db.prepare('SELECT id, execution_id FROM events ORDER BY id').all(), [
    { id: 'evt_1', execution_id: 'wex_1' },
    { id: 'evt_2', execution_id: null },
    { id: 'evt_3', execution_id: null },
  ]);
});
