// EventService.watch: a watcher hears the events of its types once they are committed, never one
// whose transaction rolled back, and only those its `wants` takes (the daemon log's failure
// lines watch step_completed for the failed steps only).
import test from 'ava';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { EventEnvelope } from '../../shared/schemas/events.js';
import { openDatabase } from '../../daemon/store/database.js';
import { tempDir } from '../helpers/app.js';
import { eventService } from '../helpers/services.js';
import { StillClock } from '../helpers/still-clock.js';

function setUp(t: import('ava').ExecutionContext) {
  const dir = tempDir();
  const db = openDatabase(join(dir, 'svc.db'));
  t.teardown(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { db, events: eventService(db, new StillClock(Date.UTC(2030, 0, 1))) };
}

const settled = () => new Promise((resolve) => setImmediate(resolve));

test('a watcher hears the committed events of its types that it wants, not the others', async (t) => {
  const { db, events } = setUp(t);
  const heard: EventEnvelope[] = [];
  events.watch(
    ['workflow.execution.step_completed'],
    (event) => heard.push(event),
    (data) => data.status === 'failed',
  );
  db.transaction(() => {
    events.publish('ws_1', 'workflow.execution.step_completed', { status: 'completed' });
    events.publish('ws_1', 'workflow.execution.step_completed', { status: 'failed', n: 1 });
    events.publish('ws_1', 'workflow.execution.failed', { status: 'failed' });
  })();
  events.publish('ws_1', 'workflow.execution.step_completed', { status: 'failed', n: 2 });
  await settled();
  t.deepEqual(
    heard.map((event) => [event.type, event.data]),
    [
      ['workflow.execution.step_completed', { status: 'failed', n: 2 }],
      ['workflow.execution.step_completed', { status: 'failed', n: 1 }],
    ],
  );
});

test('an event whose transaction rolled back is not heard', async (t) => {
  const { db, events } = setUp(t);
  const heard: unknown[] = [];
  events.watch(['workflow.execution.failed'], (event) => heard.push(event.data));
  t.throws(() =>
    db.transaction(() => {
      events.publish('ws_1', 'workflow.execution.failed', { status: 'failed' });
      throw new Error('the change fails after the event');
    })(),
  );
  await settled();
  t.deepEqual(heard, []);
  t.is(events.list('ws_1', {}).items.length, 0);
});
