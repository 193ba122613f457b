// ListQuery, the one way repositories list rows: scope, optional filters, conditions and order
// are data; pages follow the cursor without overlap, and a cursor outside the scope is refused.
import test from 'ava';
import { ApiError } from '../../daemon/domain/errors.js';
import type { Db, StoreKind } from '../../daemon/store/db.js';
import { ListQuery, type ListSpec } from '../../daemon/store/list-query.js';
import { STORE_KINDS, storeOpener } from '../helpers/postgres.js';

interface Row {
  id: string;
  parent: string;
  kind: string;
  rank: number;
  gone: number | null;
  created_at: number;
}

interface Query {
  parentId: string;
  kind?: string | undefined;
  minRank?: number | undefined;
}

async function store(t: import('ava').ExecutionContext, kind: StoreKind): Promise<Db> {
  const db = (await storeOpener(kind, { migrations: false }))();
  db.exec(
    'CREATE TABLE items (id TEXT PRIMARY KEY, parent TEXT, kind TEXT, rank INTEGER, gone INTEGER, created_at INTEGER)',
  );
  const insert = db.prepare(
    'INSERT INTO items VALUES (@id, @parent, @kind, @rank, @gone, @created_at)',
  );
  // p1 has 12 live items (created_at ties in pairs), one gone; p2 has 3.
  for (let i = 0; i < 13; i++) {
    insert.run({
      id: `it_${String(i).padStart(2, '0')}`,
      parent: 'p1',
      kind: i % 3 === 0 ? 'a' : 'b',
      rank: 100 - i,
      gone: i === 12 ? 1 : null,
      created_at: Math.floor(i / 2),
    });
  }
  for (let i = 0; i < 3; i++) {
    insert.run({ id: `ot_${i}`, parent: 'p2', kind: 'a', rank: i, gone: null, created_at: i });
  }
  t.teardown(() => {
    db.close();
  });
  return db;
}

const spec: ListSpec<Query> = {
  table: 'items',
  scope: { parent: 'parentId', gone: null },
  filters: { kind: 'kind' },
  conditions: (query) => [query.minRank !== undefined && ['rank >= ?', query.minRank]],
};

function walk(list: ListQuery<Row, Query>, query: Query, limit: number): string[][] {
  const pages: string[][] = [];
  let after: string | undefined;
  for (let guard = 0; guard < 100; guard++) {
    const page = list.page({ ...query, limit, ...(after ? { starting_after: after } : {}) });
    pages.push(page.items.map((row) => row.id));
    if (!page.hasMore) break;
    after = page.items.at(-1)!.id;
  }
  return pages;
}

for (const kind of STORE_KINDS) {
  test(`${kind}: newest first by default, ties by id descending, scope and filters applied`, async (t) => {
    const list = new ListQuery<Row, Query>(await store(t, kind), spec);
    const all = [...Array(12).keys()]
      .map((i) => `it_${String(i).padStart(2, '0')}`)
      .sort((a, b) => (a < b ? 1 : -1));
    const first = list.page({ parentId: 'p1' });
    t.deepEqual(
      first.items.map((row) => row.id),
      all,
    );
    t.is(first.totalCount, 12);
    t.false(first.hasMore);
    for (const limit of [1, 5, 11, 12]) {
      t.deepEqual(walk(list, { parentId: 'p1' }, limit).flat(), all, `limit ${limit}`);
    }
    const kindA = list.page({ parentId: 'p1', kind: 'a', limit: 2 });
    t.deepEqual(
      kindA.items.map((row) => row.id),
      ['it_09', 'it_06'],
    );
    t.is(kindA.totalCount, 4);
    t.true(kindA.hasMore);
    t.is(list.page({ parentId: 'p1', minRank: 95 }).totalCount, 6);
    // An empty filter value is a filter that was not asked for.
    t.is(list.page({ parentId: 'p1', kind: '' }).totalCount, 12);
  });

  test(`${kind}: order as data: ascending on another column`, async (t) => {
    const list = new ListQuery<Row, Query>(await store(t, kind), {
      ...spec,
      order: { column: 'rank', direction: 'asc' },
    });
    const pages = walk(list, { parentId: 'p1' }, 5);
    t.deepEqual(
      pages.map((page) => page.length),
      [5, 5, 2],
    );
    t.deepEqual(pages.flat(), [
      'it_11',
      'it_10',
      'it_09',
      'it_08',
      'it_07',
      'it_06',
      'it_05',
      'it_04',
      'it_03',
      'it_02',
      'it_01',
      'it_00',
    ]);
  });

  test(`${kind}: a cursor outside the scope is 400 invalid_parameter; one outside a filter is fine`, async (t) => {
    const list = new ListQuery<Row, Query>(await store(t, kind), spec);
    for (const id of ['ot_1', 'it_12', 'nope']) {
      const error = t.throws(() => list.page({ parentId: 'p1', starting_after: id }));
      t.true(error instanceof ApiError);
      t.is((error as ApiError).code, 'invalid_parameter');
      t.is((error as ApiError).param, 'starting_after');
    }
    // it_01 is kind b: still a position in the list, the page of kind a continues after it.
    t.deepEqual(
      list.page({ parentId: 'p1', kind: 'a', cursor: 'it_01' }).items.map((row) => row.id),
      ['it_00'],
    );
  });
}
