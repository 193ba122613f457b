// When `--wait` on a replay stops waiting for a delivery (cli/delivery-wait.ts): its attempt has
// ended, whether it was delivered, failed, is pending with the next attempt scheduled, or is held
// by a webhook that stopped (held: true, no next attempt, issue 41); not before its attempt.
import test from 'ava';
import { attemptSettled } from '../../cli/delivery-wait.js';
import type { DeliveryView } from '../../shared/schemas/webhooks.js';

function delivery(partial: Partial<DeliveryView>): DeliveryView {
  return {
    id: 'del_1',
    webhook_id: 'hook_1',
    event_id: 'evt_1',
    event_type: 'agent.updated',
    status: 'pending',
    held: false,
    http_status: null,
    attempts: 0,
    response_time_ms: null,
    error: null,
    created_at: '2026-01-05T09:00:00.000Z',
    delivered_at: null,
    last_attempt_at: null,
    next_attempt_at: '2026-01-05T09:00:00.000Z',
    ...partial,
  };
}

const ATTEMPTED = { attempts: 1, last_attempt_at: '2026-01-05T09:00:00.000Z', http_status: 500 };

test('a delivery whose attempt ended is settled, held ones included', (t) => {
  t.true(attemptSettled(delivery({ status: 'delivered', attempts: 1 })));
  t.true(attemptSettled(delivery({ status: 'failed', attempts: 1 })));
  t.true(attemptSettled(delivery({ ...ATTEMPTED, next_attempt_at: '2026-01-05T09:01:00.000Z' })));
  t.true(attemptSettled(delivery({ ...ATTEMPTED, held: true, next_attempt_at: null })));
});

test('a delivery before its attempt is not, held or not', (t) => {
  t.false(attemptSettled(delivery({})));
  t.false(attemptSettled(delivery({ held: true, next_attempt_at: null })));
});
