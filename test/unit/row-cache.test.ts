// RowCache: rows kept until written; counters that move (stats) make get() read again while
// configured() keeps the cached row.
import test from 'ava';
import { RowCache } from '../../daemon/store/row-cache.js';

function store() {
  const rows = new Map<string, { id: string; name: string; count: number }>();
  let reads = 0;
  const load = (id: string) => () => {
    reads += 1;
    const row = rows.get(id);
    return row && { ...row };
  };
  return { rows, load, reads: () => reads };
}

test('a row is read once until it is forgotten', (t) => {
  const { rows, load, reads } = store();
  const cache = new RowCache<{ id: string; name: string; count: number }>();
  rows.set('a', { id: 'a', name: 'A', count: 0 });
  const first = cache.get('a', load('a'));
  t.is(cache.get('a', load('a')), first);
  t.is(reads(), 1);
  rows.set('a', { id: 'a', name: 'B', count: 0 });
  cache.forget('a');
  t.is(cache.get('a', load('a'))!.name, 'B');
  t.is(reads(), 2);
  t.is(cache.get('missing', load('missing')), undefined);
  t.is(cache.get('missing', load('missing')), undefined);
  t.is(reads(), 4, 'a missing row is not cached');
});

test('moved counters: get() reads the row again, configured() keeps the cached one', (t) => {
  const { rows, load, reads } = store();
  const cache = new RowCache<{ id: string; name: string; count: number }>();
  rows.set('a', { id: 'a', name: 'A', count: 0 });
  const cached = cache.configured('a', load('a'));
  rows.set('a', { id: 'a', name: 'A', count: 5 });
  cache.moveCounters('a');
  t.is(cache.configured('a', load('a')), cached);
  t.is(reads(), 1);
  const fresh = cache.get('a', load('a'))!;
  t.is(fresh.count, 5);
  t.is(reads(), 2);
  t.is(cache.configured('a', load('a')), fresh);
  t.is(cache.get('a', load('a')), fresh);
  t.is(reads(), 2);
});
