// The port's notifications on PostgreSQL (LISTEN/NOTIFY, team mode): two handles on one sandbox
// stand for two daemons. A notification made in a transaction is heard once it commits, never
// when it (or its savepoint) rolls back; a daemon never hears its own; text is carried as
// given; a lost listening connection comes back and says so (RESYNC_TOPIC).
import test from 'ava';
import { RESYNC_TOPIC, type Db } from '../../daemon/store/db.js';
import { openPostgresDatabase } from '../../daemon/store/postgres/open.js';
import { freshSchema, psql, testPostgres } from '../helpers/postgres.js';

/** Two daemons' handles on one new sandbox. */
async function twoDaemons(
  t: import('ava').ExecutionContext,
): Promise<[Db, Db, { url: string; schema: string }]> {
  const { url } = await testPostgres();
  const schema = freshSchema();
  const a = openPostgresDatabase({ url, schema });
  const b = openPostgresDatabase({ url, schema });
  t.teardown(() => {
    a.close();
    b.close();
  });
  return [a, b, { url, schema }];
}

/** What `db` hears, in order; `next()` resolves with the next notification. */
function hearing(db: Db) {
  const heard: [string, string][] = [];
  let wake: (() => void) | undefined;
  db.notifications!.onNotification((topic, payload) => {
    heard.push([topic, payload]);
    wake?.();
  });
  return {
    async next(): Promise<[string, string]> {
      while (heard.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      return heard.shift()!;
    },
  };
}

test('heard once committed; a rolled-back transaction or savepoint announces nothing', async (t) => {
  const [a, b] = await twoDaemons(t);
  const onB = hearing(b);
  const put = a.prepare('INSERT INTO settings (key, value) VALUES (?, ?)');
  t.throws(
    () =>
      a.transaction(() => {
        put.run('k1', 'v');
        a.notifications!.notify('setting', 'k1');
        throw new Error('rolled back');
      })(),
    { message: 'rolled back' },
  );
  a.transaction(() => {
    put.run('k2', 'v');
    a.notifications!.notify('setting', 'k2');
    t.throws(() =>
      a.transaction(() => {
        a.notifications!.notify('setting', 'inner');
        throw new Error('savepoint rolled back');
      })(),
    );
    a.transaction(() => a.notifications!.notify('setting', 'released'))();
  })();
  t.deepEqual(await onB.next(), ['setting', 'k2']);
  t.deepEqual(await onB.next(), ['setting', 'released']);
  // Heard after the commit: B reads the row it announces.
  t.is(b.prepare('SELECT value FROM settings WHERE key = ?').pluck().get('k2'), 'v');
  // Outside a transaction: sent at once.
  a.notifications!.notify('clock', '');
  t.deepEqual(await onB.next(), ['clock', '']);
});

test('a daemon never hears its own; quotes and backslashes arrive as sent', async (t) => {
  const [a, b] = await twoDaemons(t);
  const onA = hearing(a);
  const onB = hearing(b);
  const text = `it's a \\ back'slash\\' "quoted" ; SELECT 1; --`;
  a.notifications!.notify('mine', text);
  t.deepEqual(await onB.next(), ['mine', text]);
  b.notifications!.notify('theirs', 'x');
  // A's own came first; had A heard it, it would be first here.
  t.deepEqual(await onA.next(), ['theirs', 'x']);
  t.throws(() => a.notifications!.notify('big', 'x'.repeat(8000)), { instanceOf: RangeError });
  t.throws(() => a.notifications!.notify('a\tb', ''), { instanceOf: TypeError });
});

test.serial('a lost listening connection comes back and says so (resync)', async (t) => {
  const [a, b, { url, schema }] = await twoDaemons(t);
  const onB = hearing(b);
  // Only B listens on this sandbox's channel: its listening connection is the one that did.
  const killed = psql(
    url,
    `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = 'svc listen' AND query = 'LISTEN "${schema}"'`,
  ).trim();
  t.is(killed, '1');
  t.deepEqual(await onB.next(), [RESYNC_TOPIC, '']);
  a.notifications!.notify('after', '1');
  t.deepEqual(await onB.next(), ['after', '1']);
});
