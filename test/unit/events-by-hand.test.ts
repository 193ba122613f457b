// An event published by hand (`svc events trigger`, the dashboard's "Send an event"): refused
// outside the sandbox environment with 409 conflict; else the given data, or a sample of the type.
import test from 'ava';
import { ApiError } from '../../daemon/domain/errors.js';
import { publishByHand } from '../../daemon/events/by-hand.js';
import type { EventService } from '../../daemon/events/event.service.js';

function recorder() {
  const published: [string, string, Record<string, unknown>][] = [];
  const events = {
    publishAlone: (workspaceId: string, type: string, data: Record<string, unknown>) => {
      published.push([workspaceId, type, data]);
      return Promise.resolve({ id: 'evt_1', type, data });
    },
  } as unknown as EventService;
  return { events, published };
}

const request = {
  workspaceId: 'ws_1',
  type: 'agent.created' as const,
  nowIso: '2026-01-02T03:04:05.000Z',
};

test('outside the sandbox nothing is published: 409 conflict saying why', async (t) => {
  const { events, published } = recorder();
  const error = await t.throwsAsync(() =>
    publishByHand(events, { ...request, environment: 'production', data: { a: 1 } }),
  );
  t.true(error instanceof ApiError);
  t.is((error as ApiError).code, 'conflict');
  t.is(error.message, 'Events can only be triggered by hand in the sandbox environment.');
  t.deepEqual(published, []);
});

test('in the sandbox: the data given, else a sample of the type at the daemon time', async (t) => {
  const { events, published } = recorder();
  await publishByHand(events, { ...request, environment: 'sandbox', data: { name: 'edited' } });
  await publishByHand(events, { ...request, environment: 'sandbox' });
  t.deepEqual(published[0], ['ws_1', 'agent.created', { name: 'edited' }]);
  t.like(published[1]![2], {
    name: 'Sample support agent',
    workspace_id: 'ws_1',
    created_at: request.nowIso,
  });
});
