// A daemon's checkpointer starts its worker at the first write after start (firstWorkerOnWrite),
// not at start: a daemon that only reads never starts the thread. What was written before (a new
// store's migrations) is checkpointed by that worker, or by the store's close.
import test, { type ExecutionContext } from 'ava';
import Database from 'better-sqlite3';
import { existsSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Checkpointer } from '../../daemon/store/checkpointer.js';
import { openDatabase, writeCounter } from '../../daemon/store/database.js';
import { tempDir } from '../helpers/app.js';

const silent = { error: () => undefined };

/** A store with rows written before the checkpointer starts. */
function writtenStore(t: ExecutionContext) {
  const dir = tempDir();
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'svc.db');
  const db = openDatabase(file, []);
  db.exec('CREATE TABLE rows (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO rows (body) VALUES (?)');
  for (let i = 0; i < 20; i += 1) insert.run('before start');
  const checkpointer = new Checkpointer(file, silent, {
    intervalMs: 10,
    writes: writeCounter(db),
    firstWorkerOnWrite: true,
  });
  return { file, db, insert, checkpointer };
}

/** Closes the store and counts its rows from a fresh connection: what reached the files. */
function storedRows(t: ExecutionContext, file: string, db: Database.Database): number {
  db.close();
  const reopened = new Database(file, { readonly: true });
  t.teardown(() => reopened.close());
  return (reopened.prepare('SELECT count(*) AS n FROM rows').get() as { n: number }).n;
}

test('no worker at start; the first write starts one, which checkpoints what came before too', async (t) => {
  const { file, db, insert, checkpointer } = writtenStore(t);
  checkpointer.start();
  t.false(checkpointer.running, 'start() starts no worker');
  t.is(checkpointer.workersStarted, 0);

  insert.run('after start');
  // A busy machine can take seconds to start a worker: bounded by time, not by a count.
  const deadline = Date.now() + 30_000;
  const copiedAll = () => {
    const report = checkpointer.lastReport();
    return report !== undefined && report.log > 0 && report.checkpointed === report.log;
  };
  while (!copiedAll() && Date.now() < deadline) await sleep(10);
  t.is(checkpointer.workersStarted, 1, 'the write started one worker');
  t.true(copiedAll(), 'which copied every frame, those written before start() included');

  await checkpointer.stop();
  t.false(checkpointer.running);
  t.is(storedRows(t, file, db), 21);
});

test('stopped before any write, it never started a worker and the close keeps every row', async (t) => {
  const { file, db, checkpointer } = writtenStore(t);
  checkpointer.start();
  await checkpointer.stop();
  t.is(checkpointer.workersStarted, 0);
  t.is(checkpointer.lastReport(), undefined);
  t.true(statSync(`${file}-wal`).size > 0, 'the rows are in the WAL until the close');
  db.close();
  t.false(existsSync(`${file}-wal`), 'the close checkpointed the WAL into the file');
  const reopened = new Database(file, { readonly: true });
  t.teardown(() => reopened.close());
  t.is((reopened.prepare('SELECT count(*) AS n FROM rows').get() as { n: number }).n, 20);
});
