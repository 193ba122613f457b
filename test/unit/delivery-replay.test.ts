// Which stored deliveries svc webhooks replay sends again (daemon/webhooks/deliveries/replay.ts):
// each event once, judged by its latest delivery, filtered by status and event type.
import test from 'ava';
import type { DeliveryRow } from '../../daemon/webhooks/deliveries/delivery.repository.js';
import { chooseReplays, type ReplayFilter } from '../../daemon/webhooks/deliveries/replay.js';

let created = 0;
function row(id: string, eventId: string, status: DeliveryRow['status'], type = 'agent.created') {
  created += 1;
  return {
    id,
    webhook_id: 'hook_1',
    workspace_id: 'ws_1',
    event_id: eventId,
    event_type: type,
    body: '{}',
    status,
    attempts: 1,
    http_status: null,
    response_time_ms: null,
    error: null,
    created_at: created,
    delivered_at: null,
    last_attempt_at: null,
    next_attempt_at: null,
  } satisfies DeliveryRow;
}

const filter = (over: Partial<ReplayFilter> = {}): ReplayFilter => ({
  from: 0,
  to: Number.MAX_SAFE_INTEGER,
  status: 'failed',
  dryRun: false,
  limit: 1000,
  includeDeliveries: false,
  ...over,
});

const ids = (rows: DeliveryRow[]) => rows.map((r) => r.id);

// Oldest first, as the repository reads them: evt_1 failed then a replay delivered it; evt_2
// failed twice; evt_3 delivered; evt_4 is still on its way; evt_5 failed (another type).
const window = [
  row('del_1', 'evt_1', 'failed'),
  row('del_2', 'evt_2', 'failed'),
  row('del_3', 'evt_3', 'delivered'),
  row('del_4', 'evt_1', 'delivered'),
  row('del_5', 'evt_2', 'failed'),
  row('del_6', 'evt_4', 'pending'),
  row('del_7', 'evt_5', 'failed', 'workflow.execution.failed'),
];

test('failed: the events whose latest delivery failed, not those a later replay delivered', (t) => {
  t.deepEqual(ids(chooseReplays(window, filter())), ['del_5', 'del_7']);
});

test('delivered and all: all takes every finished event, never a pending one', (t) => {
  t.deepEqual(ids(chooseReplays(window, filter({ status: 'delivered' }))), ['del_4', 'del_3']);
  t.deepEqual(ids(chooseReplays(window, filter({ status: 'all' }))), [
    'del_4',
    'del_5',
    'del_3',
    'del_7',
  ]);
});

test('an event type narrows the choice; an empty window chooses nothing', (t) => {
  t.deepEqual(ids(chooseReplays(window, filter({ status: 'all', eventType: 'agent.created' }))), [
    'del_4',
    'del_5',
    'del_3',
  ]);
  t.deepEqual(chooseReplays([], filter({ status: 'all' })), []);
});
