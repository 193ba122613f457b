// EventService's failurePublished hook (domain/hooks.ts): the daemon log's failure lines hear the
// events that report failed or cancelled work once they are committed, never one whose
// transaction rolled back, and no other event (a completed step, most of them).
import test from 'ava';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { EventEnvelope } from '../../shared/schemas/events.js';
import { openDatabase } from '../../daemon/store/database.js';
import { tempDir } from '../helpers/app.js';
import { Hooks } from '../../daemon/domain/hooks.js';
import { eventService } from '../helpers/services.js';
import { StillClock } from '../helpers/still-clock.js';

function setUp(t: import('ava').ExecutionContext) {
  const dir = tempDir();
  const db = openDatabase(join(dir, 'svc.db'));
  t.teardown(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const hooks = new Hooks();
  return { db, hooks, events: eventService(db, new StillClock(Date.UTC(2030, 0, 1)), hooks) };
}

const settled = () => new Promise((resolve) => setImmediate(resolve));

test('failurePublished hears the committed events that report a failure, not the others', async (t) => {
  const { db, events, hooks } = setUp(t);
  const heard: EventEnvelope[] = [];
  hooks.add('failurePublished', (event) => heard.push(event));
  db.transaction(() => {
    events.publish('ws_1', 'workflow.execution.step_completed', { status: 'completed' });
    events.publish('ws_1', 'workflow.execution.step_completed', { status: 'failed', n: 1 });
    events.publish('ws_1', 'workflow.execution.failed', { status: 'cancelled' });
    events.publish('ws_1', 'workflow.execution.completed', { status: 'completed' });
  })();
  events.publish('ws_1', 'workflow.execution.step_completed', { status: 'failed', n: 2 });
  events.publish('ws_1', 'agent.execution.failed', { status: 'failed' });
  events.publish('ws_1', 'agent.execution.completed', { status: 'completed' });
  await settled();
  // Those published alone are heard at once; those of the transaction once it has committed.
  t.deepEqual(
    heard.map((event) => [event.type, event.data]),
    [
      ['workflow.execution.step_completed', { status: 'failed', n: 2 }],
      ['agent.execution.failed', { status: 'failed' }],
      ['workflow.execution.step_completed', { status: 'failed', n: 1 }],
      ['workflow.execution.failed', { status: 'cancelled' }],
    ],
  );
});

test('an event whose transaction rolled back is not heard', async (t) => {
  const { db, events, hooks } = setUp(t);
  const heard: unknown[] = [];
  hooks.add('failurePublished', (event) => heard.push(event.data));
  hooks.add('eventPublished', (event) => heard.push(event.data));
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
