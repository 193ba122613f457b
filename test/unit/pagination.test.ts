// Cursor pagination: pageRequest/toPage, and keyset pages end to end through EventService on a
// real SQLite file (newest first, ties in created_at by id descending, 30-day retention).
import test from 'ava';
import { StillClock } from '../helpers/still-clock.js';
import { OffsetClock } from '../../daemon/time/clock.js';
import type { EventService } from '../../daemon/events/event.service.js';
import { ApiError } from '../../daemon/domain/errors.js';
import { Hooks } from '../../daemon/domain/hooks.js';
import { DEFAULT_PAGE_SIZE, pageRequest, toPage } from '../../daemon/domain/pages.js';
import type { Db, StoreKind } from '../../daemon/store/db.js';
import type { EventEnvelope } from '../../shared/schemas/events.js';
import { STORE_KINDS, storeOpener } from '../helpers/postgres.js';
import { eventService } from '../helpers/services.js';

/** Event lists carry JSON text items (sent as stored); read their ids. */
function itemId(item: { json: string }): string {
  return (JSON.parse(item.json) as { id: string }).id;
}

const DAY = 86_400_000;

async function openStore(t: import('ava').ExecutionContext, kind: StoreKind): Promise<Db> {
  const db = (await storeOpener(kind))();
  t.teardown(() => db.close());
  return db;
}

/** Walks every page with the given limit; returns the pages' ids. */
function walk(
  events: EventService,
  workspaceId: string,
  limit: number,
  extra: { type?: string } = {},
  useAlias = false,
): { pages: string[][]; totals: number[] } {
  const pages: string[][] = [];
  const totals: number[] = [];
  let after: string | undefined;
  for (let guard = 0; guard < 1000; guard++) {
    const page = events.list(workspaceId, {
      limit,
      ...extra,
      ...(after ? (useAlias ? { cursor: after } : { starting_after: after }) : {}),
    });
    pages.push(page.items.map(itemId));
    totals.push(page.totalCount);
    if (!page.hasMore) break;
    after = itemId(page.items.at(-1)!);
  }
  return { pages, totals };
}

function newestFirst(list: EventEnvelope[]): string[] {
  return [...list]
    .sort((a, b) =>
      a.created_at === b.created_at
        ? a.id < b.id
          ? 1
          : a.id > b.id
            ? -1
            : 0
        : a.created_at < b.created_at
          ? 1
          : -1,
    )
    .map((event) => event.id);
}

test('pageRequest: default limit, starting_after and its alias cursor, unknown cursors', (t) => {
  const positions: Record<string, { key: number; id: string }> = {
    evt_1: { key: 1, id: 'evt_1' },
    evt_2: { key: 2, id: 'evt_2' },
  };
  const position = (id: string) => positions[id];
  t.deepEqual(pageRequest({}, position), { limit: DEFAULT_PAGE_SIZE, cursor: undefined });
  t.is(DEFAULT_PAGE_SIZE, 20);
  t.deepEqual(pageRequest({ limit: 5, starting_after: 'evt_1' }, position), {
    limit: 5,
    cursor: positions.evt_1,
  });
  t.deepEqual(pageRequest({ cursor: 'evt_2' }, position), { limit: 20, cursor: positions.evt_2 });
  t.deepEqual(pageRequest({ cursor: 'evt_2', starting_after: 'evt_2' }, position), {
    limit: 20,
    cursor: positions.evt_2,
  });
  const both = t.throws(() => pageRequest({ cursor: 'evt_1', starting_after: 'evt_2' }, position));
  t.true(both instanceof ApiError);
  t.is((both as ApiError).code, 'invalid_parameter');
  const unknownAfter = t.throws(() =>
    pageRequest({ starting_after: 'evt_x' }, position),
  ) as ApiError;
  t.is(unknownAfter.code, 'invalid_parameter');
  t.is(unknownAfter.param, 'starting_after');
  const unknownCursor = t.throws(() => pageRequest({ cursor: 'evt_x' }, position)) as ApiError;
  t.is(unknownCursor.param, 'cursor');
});

test('toPage: limit + 1 rows means there is more', (t) => {
  t.deepEqual(toPage([1, 2, 3, 4], 3, 10), { items: [1, 2, 3], hasMore: true, totalCount: 10 });
  t.deepEqual(toPage([1, 2, 3], 3, 3), { items: [1, 2, 3], hasMore: false, totalCount: 3 });
  t.deepEqual(toPage([], 3, 0), { items: [], hasMore: false, totalCount: 0 });
});

for (const kind of STORE_KINDS) {
  test(`${kind}: events with equal created_at: ordered by id descending, pages neither overlap nor miss`, async (t) => {
    const db = await openStore(t, kind);
    const clock = new StillClock(Date.now());
    const events = eventService(db, clock);
    const published: EventEnvelope[] = [];
    // 25 events at one instant, then 12 at a later one, then 8 at the first one again... all ties.
    for (let i = 0; i < 25; i++) published.push(events.publish('ws_a', 'agent.created', { i }));
    clock.ms += 1000;
    for (let i = 0; i < 12; i++) published.push(events.publish('ws_a', 'agent.updated', { i }));
    clock.ms -= 1000;
    for (let i = 0; i < 8; i++) published.push(events.publish('ws_a', 'workflow.created', { i }));
    // Another workspace's events never show.
    for (let i = 0; i < 5; i++) events.publish('ws_b', 'agent.created', { i });

    const expected = newestFirst(published);
    const first = events.list('ws_a', {});
    t.is(first.items.length, 20);
    t.true(first.hasMore);
    t.is(first.totalCount, 45);
    t.deepEqual(first.items.map(itemId), expected.slice(0, 20));

    for (const limit of [1, 3, 7, 20, 44, 45, 100]) {
      const { pages, totals } = walk(events, 'ws_a', limit);
      const all = pages.flat();
      t.deepEqual(all, expected, `limit ${limit}`);
      t.is(new Set(all).size, all.length, `no duplicates at limit ${limit}`);
      t.is(pages.length, Math.ceil(45 / limit), `page count at limit ${limit}`);
      t.true(
        totals.every((n) => n === 45),
        'total_count is the whole list on every page',
      );
    }
    // cursor is an alias of starting_after.
    t.deepEqual(walk(events, 'ws_a', 6, {}, true).pages.flat(), expected);
  });

  test(`${kind}: type filters: exact types, prefixes, several at once`, async (t) => {
    const db = await openStore(t, kind);
    const clock = new StillClock(Date.now());
    const events = eventService(db, clock);
    const types = [
      'agent.created',
      'agent.execution.completed',
      'workflow.created',
      'workflow.execution.failed',
      'integration.connected',
    ] as const;
    const published: EventEnvelope[] = [];
    for (let round = 0; round < 6; round++) {
      for (const type of types) {
        published.push(events.publish('ws_a', type, { round }));
        clock.ms += round % 2;
      }
    }
    const expect = (predicate: (type: string) => boolean) =>
      newestFirst(published.filter((e) => predicate(e.type)));

    const exact = walk(events, 'ws_a', 4, { type: 'agent.created' });
    t.deepEqual(
      exact.pages.flat(),
      expect((type) => type === 'agent.created'),
    );
    t.true(exact.totals.every((n) => n === 6));

    const prefix = walk(events, 'ws_a', 5, { type: 'agent.*' });
    t.deepEqual(
      prefix.pages.flat(),
      expect((type) => type.startsWith('agent.')),
    );
    t.true(prefix.totals.every((n) => n === 12));

    const several = walk(events, 'ws_a', 7, {
      type: 'workflow.execution.*, integration.connected',
    });
    t.deepEqual(
      several.pages.flat(),
      expect((type) => type === 'workflow.execution.failed' || type === 'integration.connected'),
    );
    t.true(several.totals.every((n) => n === 12));

    const error = t.throws(() => events.list('ws_a', { type: 'agent.exploded' }));
    t.true(error instanceof ApiError);
    t.is((error as ApiError).code, 'invalid_parameter');
    t.is((error as ApiError).param, 'type');
  });

  test(`${kind}: an unknown cursor, or one of another workspace, is invalid_parameter`, async (t) => {
    const db = await openStore(t, kind);
    const events = eventService(db, new StillClock(Date.now()));
    events.publish('ws_a', 'agent.created', {});
    const foreign = events.publish('ws_b', 'agent.created', {});
    for (const cursor of ['evt_doesnotexist', foreign.id]) {
      const error = t.throws(() => events.list('ws_a', { starting_after: cursor }));
      t.true(error instanceof ApiError);
      t.is((error as ApiError).code, 'invalid_parameter');
      t.is((error as ApiError).status, 400);
      t.is((error as ApiError).param, 'starting_after');
      t.true((error as ApiError).message.includes(cursor));
    }
  });

  test(`${kind}: events older than 30 days on the daemon clock are gone from lists, get and counts`, async (t) => {
    const db = await openStore(t, kind);
    const clock = new OffsetClock();
    const events = eventService(db, clock);
    const old = [0, 1, 2].map((i) => events.publish('ws_a', 'agent.created', { i }));
    clock.setOffset(20 * DAY);
    const recent = [0, 1].map((i) => events.publish('ws_a', 'agent.updated', { i }));

    t.is(events.list('ws_a', {}).totalCount, 5);
    t.truthy(events.get('ws_a', old[0]!.id));
    t.is(events.get('ws_b', old[0]!.id), undefined, 'other workspaces do not see it');

    // 31 days after the first batch, 11 after the second.
    clock.setOffset(31 * DAY);
    const page = events.list('ws_a', {});
    t.is(page.totalCount, 2);
    t.false(page.hasMore);
    t.deepEqual(page.items.map(itemId), newestFirst(recent));
    t.is(events.get('ws_a', old[1]!.id), undefined);
    t.truthy(events.get('ws_a', recent[0]!.id));

    // Purging deletes exactly the expired rows.
    t.is(events.purgeExpired(), 3);
    t.is(events.purgeExpired(), 0);
    t.is((db.prepare('SELECT COUNT(*) AS n FROM events').get() as { n: number }).n, 2);

    clock.setOffset(51 * DAY);
    t.is(events.list('ws_a', {}).totalCount, 0);
    t.deepEqual(events.list('ws_a', {}).items, []);
  });

  test(`${kind}: a published event is stored with its envelope and heard by listeners`, async (t) => {
    const db = await openStore(t, kind);
    const clock = new StillClock(Date.UTC(2030, 4, 6, 7, 8, 9, 10));
    const hooks = new Hooks();
    const events = eventService(db, clock, hooks);
    const heard: EventEnvelope[] = [];
    const stop = hooks.add('eventPublished', (event) => heard.push(event));
    const event = events.publish('ws_a', 'agent.created', { agent_id: 'agt_1', nested: { n: 1 } });
    stop();
    events.publish('ws_a', 'agent.deleted', {});
    t.regex(event.id, /^evt_[0-9A-Za-z]+$/);
    t.is(event.created_at, '2030-05-06T07:08:09.010Z');
    t.deepEqual(heard, [event]);
    t.deepEqual(events.get('ws_a', event.id), event);
  });
}
