// GET /v1/events and /v1/events/{id} against the real daemon: order, the default page,
// both cursor forms, the type filter and the 30-day retention on the sandbox clock.
// Serial: the last test moves the clock 31 days.
import test, { type ExecutionContext } from 'ava';
import { startDaemon, type TestDaemon } from '../helpers/daemon.js';
import type { EventEnvelope as Event } from '../../shared/schemas/events.js';
import { control } from '../helpers/api.js';

let daemon: TestDaemon;
let key: string;
let workspace: string;
/** Every event of the workspace, newest first (created_at desc, then id desc). */
let events: Event[];

const TYPES: Record<string, number> = {
  'agent.created': 9,
  'agent.updated': 3,
  'workflow.created': 6,
  'workflow.execution.completed': 4,
  'integration.connected': 3,
};
const TOTAL = Object.values(TYPES).reduce((a, b) => a + b, 0);

function newestFirst(a: Event, b: Event): number {
  if (a.created_at !== b.created_at) return a.created_at < b.created_at ? 1 : -1;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/**
 * The control channel's events.trigger, which `svc events trigger` calls: used for the bulk
 * of the events because 25 CLI processes would take seconds (the CLI is used below too).
 */
function publish(type: string): Promise<Event> {
  return control<Event>(daemon, 'events.trigger', { type, workspace_id: workspace });
}

async function trigger(type: string): Promise<Event> {
  const result = await daemon.cli(['events', 'trigger', type, '--workspace', workspace, '--json']);
  if (result.code !== 0) throw new Error(`events trigger ${type} failed: ${result.stderr}`);
  return result.json<Event>();
}

const list = (query = '') => daemon.request(`/v1/events${query}`, { key, tenant: workspace });
const ids = (items: Event[]) => items.map((event) => event.id);

function assertInvalid(
  t: ExecutionContext,
  answer: Awaited<ReturnType<TestDaemon['request']>>,
  params: string[],
): void {
  t.is(answer.status, 400, answer.text);
  t.is(answer.body?.error?.code, 'invalid_parameter');
  t.true(params.includes(answer.body.error.param), `param ${answer.body.error.param}`);
  t.is(answer.body.error.request_id, answer.headers.get('x-request-id'));
}

test.before(async () => {
  daemon = await startDaemon();
  ({ key } = await daemon.operator());
  workspace = await daemon.createWorkspace('Events', 'enterprise');
  // Interleave the types, and trigger a few at a time: equal created_at are ordered by id.
  const queue = Object.entries(TYPES).flatMap(([type, count]) =>
    Array.from({ length: count }, (_, i) => ({ type, i })),
  );
  queue.sort((a, b) => a.i - b.i);
  // The first one through the CLI, as a user would.
  events = [await trigger(queue[0]!.type)];
  for (let start = 1; start < queue.length; start += 5) {
    const batch = queue.slice(start, start + 5);
    events.push(...(await Promise.all(batch.map(({ type }) => publish(type)))));
  }
  events.sort(newestFirst);
});

test.after.always(async () => {
  await daemon?.stop();
});

test.serial('the list is newest first with a default page of 20', async (t) => {
  t.is(events.length, TOTAL);
  const answer = await list();
  t.is(answer.status, 200, answer.text);
  const body = answer.body;
  t.is(body.data.length, 20);
  t.is(body.has_more, true);
  t.is(body.meta.has_more, true);
  t.is(body.total_count, TOTAL);
  t.is(body.meta.next_cursor, body.data[19].id);
  t.deepEqual(ids(body.data), ids(events.slice(0, 20)));
  for (const event of body.data as Event[]) {
    t.regex(event.id, /^evt_/);
    t.is(event.workspace_id, workspace);
    t.regex(event.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    t.is(typeof event.data, 'object');
  }
  const sorted = [...(body.data as Event[])].sort(newestFirst);
  t.deepEqual(ids(body.data), ids(sorted), 'created_at desc, ties by id desc');
  // The list items are the triggered envelopes as they were published.
  t.deepEqual(body.data[0], events[0]);
});

test.serial('starting_after and cursor page through without overlap or gaps', async (t) => {
  for (const param of ['starting_after', 'cursor']) {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const answer = await list(`?limit=7${cursor ? `&${param}=${cursor}` : ''}`);
      t.is(answer.status, 200, answer.text);
      const body = answer.body;
      t.is(body.total_count, TOTAL, 'total_count counts the whole list on every page');
      seen.push(...ids(body.data));
      t.is(body.has_more, body.meta.has_more);
      t.is(body.meta.next_cursor, body.has_more ? body.data.at(-1).id : null);
      cursor = body.meta.next_cursor;
      pages += 1;
    } while (cursor && pages < 10);
    t.is(pages, Math.ceil(TOTAL / 7), param);
    t.deepEqual(seen, ids(events), `${param}: every event once, in order`);
  }
  // The last page of an exact split says there is nothing more.
  const last = await list(`?limit=5&starting_after=${events[TOTAL - 6]!.id}`);
  t.is(last.status, 200);
  t.deepEqual(ids(last.body.data), ids(events.slice(TOTAL - 5)));
  t.is(last.body.has_more, false);
  t.is(last.body.meta.next_cursor, null);
  // After the very last item: an empty page.
  const empty = await list(`?starting_after=${events[TOTAL - 1]!.id}`);
  t.is(empty.status, 200);
  t.deepEqual(empty.body.data, []);
  t.is(empty.body.has_more, false);
  t.is(empty.body.meta.next_cursor, null);
  // Both names with the same value are fine.
  const both = await list(`?limit=3&starting_after=${events[2]!.id}&cursor=${events[2]!.id}`);
  t.is(both.status, 200, both.text);
  t.deepEqual(ids(both.body.data), ids(events.slice(3, 6)));
});

test.serial('limit=100 returns everything', async (t) => {
  const answer = await list('?limit=100');
  t.is(answer.status, 200);
  t.deepEqual(ids(answer.body.data), ids(events));
  t.is(answer.body.has_more, false);
  t.is(answer.body.meta.next_cursor, null);
});

test.serial('type filters: exact, comma-separated and prefix', async (t) => {
  const expect = (filter: (event: Event) => boolean) => ids(events.filter(filter));

  const exact = await list('?type=agent.created&limit=100');
  t.is(exact.status, 200, exact.text);
  t.deepEqual(
    ids(exact.body.data),
    expect((e) => e.type === 'agent.created'),
  );
  t.is(exact.body.total_count, TYPES['agent.created']);

  const several = await list(
    `?type=${encodeURIComponent('agent.updated,integration.connected')}&limit=100`,
  );
  t.is(several.status, 200, several.text);
  t.deepEqual(
    ids(several.body.data),
    expect((e) => e.type === 'agent.updated' || e.type === 'integration.connected'),
  );
  t.is(several.body.total_count, TYPES['agent.updated']! + TYPES['integration.connected']!);

  const prefix = await list(`?type=${encodeURIComponent('workflow.*')}&limit=100`);
  t.is(prefix.status, 200, prefix.text);
  t.deepEqual(
    ids(prefix.body.data),
    expect((e) => e.type.startsWith('workflow.')),
  );
  t.is(
    prefix.body.total_count,
    TYPES['workflow.created']! + TYPES['workflow.execution.completed']!,
  );

  const mixed = await list(
    `?type=${encodeURIComponent('workflow.execution.*,agent.updated')}&limit=100`,
  );
  t.is(mixed.status, 200, mixed.text);
  t.deepEqual(
    ids(mixed.body.data),
    expect((e) => e.type.startsWith('workflow.execution.') || e.type === 'agent.updated'),
  );

  // A filtered list pages like any other.
  const first = await list('?type=agent.created&limit=4');
  t.is(first.body.has_more, true);
  t.is(first.body.total_count, TYPES['agent.created']);
  const second = await list(`?type=agent.created&limit=4&cursor=${first.body.meta.next_cursor}`);
  t.deepEqual(
    [...ids(first.body.data), ...ids(second.body.data)],
    expect((e) => e.type === 'agent.created').slice(0, 8),
  );

  // A known type with no events yet is an empty list, not an error.
  const none = await list('?type=agent.deleted');
  t.is(none.status, 200);
  t.deepEqual(none.body.data, []);
  t.is(none.body.total_count, 0);
  t.is(none.body.has_more, false);
});

test.serial('an unknown type is 400 invalid_parameter', async (t) => {
  for (const type of ['agent.exploded', 'AGENT.CREATED', 'agent', 'agent.created,nope']) {
    assertInvalid(t, await list(`?type=${encodeURIComponent(type)}`), ['type']);
  }
});

test.serial('an unknown cursor is 400 invalid_parameter', async (t) => {
  assertInvalid(t, await list('?starting_after=evt_doesnotexist0000'), ['starting_after']);
  assertInvalid(t, await list('?cursor=evt_doesnotexist0000'), ['cursor', 'starting_after']);
  assertInvalid(t, await list('?cursor=garbage'), ['cursor', 'starting_after']);
  // Two different cursors at once.
  assertInvalid(t, await list(`?starting_after=${events[1]!.id}&cursor=${events[2]!.id}`), [
    'cursor',
    'starting_after',
  ]);
  // An event of another workspace is not a cursor of this list.
  const other = await daemon.cli(['events', 'trigger', 'agent.created', '--json']);
  t.is(other.code, 0, other.stderr);
  assertInvalid(t, await list(`?cursor=${other.json<Event>().id}`), ['cursor', 'starting_after']);
});

test.serial('GET /v1/events/{id} returns the event in the envelope', async (t) => {
  const event = events[7]!;
  const answer = await daemon.request(`/v1/events/${event.id}`, { key, tenant: workspace });
  t.is(answer.status, 200, answer.text);
  t.deepEqual(Object.keys(answer.body).sort(), ['data', 'meta']);
  t.deepEqual(answer.body.data, event);
  t.deepEqual(Object.keys(answer.body.data).sort(), [
    'created_at',
    'data',
    'id',
    'type',
    'workspace_id',
  ]);
  t.is(answer.body.meta.request_id, answer.headers.get('x-request-id'));

  const missing = await daemon.request('/v1/events/evt_doesnotexist0000', {
    key,
    tenant: workspace,
  });
  t.is(missing.status, 404);
  t.is(missing.body.error.code, 'not_found');
});

test.serial('after 30 days the events are gone from the list and from get', async (t) => {
  const old = events[0]!;
  const before = await daemon.request(`/v1/events/${old.id}`, { key, tenant: workspace });
  t.is(before.status, 200);

  // 29 days later they are still there.
  // The clock over the control channel, as `svc clock advance` moves it (tested in cli-operator).
  await daemon.advance('29d');
  const stillThere = await list('?limit=100');
  t.is(stillThere.body.total_count, TOTAL);

  await daemon.advance('2d');

  const after = await list();
  t.is(after.status, 200, after.text);
  t.deepEqual(after.body.data, []);
  t.is(after.body.total_count, 0);
  t.is(after.body.has_more, false);
  t.is(after.body.meta.next_cursor, null);
  for (const event of [old, events[TOTAL - 1]!]) {
    const gone = await daemon.request(`/v1/events/${event.id}`, { key, tenant: workspace });
    t.is(gone.status, 404, gone.text);
    t.is(gone.body.error.code, 'not_found');
  }

  // New events are kept as usual.
  const fresh = await trigger('workflow.created');
  const now = await list();
  t.deepEqual(ids(now.body.data), [fresh.id]);
  t.is(now.body.total_count, 1);
  const got = await daemon.request(`/v1/events/${fresh.id}`, { key, tenant: workspace });
  t.is(got.status, 200);
  t.deepEqual(got.body.data, fresh);
});
