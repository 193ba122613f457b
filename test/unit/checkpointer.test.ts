// WAL checkpoints run in a worker thread on a second connection: committed pages reach the
// database file while the daemon's connection keeps writing, the WAL starts over instead of
// growing, and nothing committed is lost when the checkpointer and the store close. A daemon's
// checkpointer (firstWorkerOnWrite) starts its worker at the first write after start, so a
// daemon that only reads never starts the thread.
import test, { type ExecutionContext } from 'ava';
import Database from 'better-sqlite3';
import { existsSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Checkpointer } from '../../daemon/store/checkpointer.js';
import { openDatabase, restartWal, writeCounter } from '../../daemon/store/database.js';
import { tempDir } from '../helpers/app.js';

const silent = { error: () => undefined };

/** A store in a temp dir with one table to write rows of text into. */
function rowsStore(t: ExecutionContext) {
  const dir = tempDir();
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'svc.db');
  const db = openDatabase(file, []);
  db.exec('CREATE TABLE rows (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
  return { file, db, insert: db.prepare('INSERT INTO rows (body) VALUES (?)') };
}

/** Closes the store and counts its rows from a fresh connection: what reached the files. */
function storedRows(t: ExecutionContext, file: string, db: Database.Database): number {
  db.close();
  const reopened = new Database(file, { readonly: true });
  t.teardown(() => reopened.close());
  return (reopened.prepare('SELECT count(*) AS n FROM rows').get() as { n: number }).n;
}

test('a worker checkpoints while the store writes; the WAL starts over and no row is lost', async (t) => {
  const { file, db, insert } = rowsStore(t);
  t.is(db.pragma('wal_autocheckpoint', { simple: true }), 0, 'no checkpoint on commit');
  const checkpointer = new Checkpointer(file, silent, { intervalMs: 10 });
  checkpointer.start();

  // Sustained writes with pauses for the worker, until its reports show the WAL's frame count
  // falling back (a restart after a complete checkpoint) instead of only growing. Bounded by
  // time, not by a count of batches: a busy machine can take seconds to start the worker.
  const logSizes: number[] = [];
  let written = 0;
  let restarts = 0;
  const deadline = Date.now() + 60_000;
  while (restarts === 0 && Date.now() < deadline) {
    db.transaction(() => {
      for (let i = 0; i < 200; i += 1) insert.run('x'.repeat(500));
    })();
    written += 200;
    await sleep(15);
    const report = checkpointer.lastReport();
    if (report && report.log !== logSizes.at(-1)) {
      if (logSizes.length > 0 && report.log < logSizes.at(-1)!) restarts += 1;
      logSizes.push(report.log);
    }
  }
  t.true(logSizes.length > 0, 'the worker reported checkpoints');
  t.true(restarts > 0, `the WAL started over at least once (frames: ${logSizes.join(',')})`);

  await checkpointer.stop();
  t.is(storedRows(t, file, db), written);
});

test('under writes without a pause, the writer restarts the log past its bound and the file stays bounded', async (t) => {
  const { file, db, insert } = rowsStore(t);
  let catchUps = 0;
  const maxWalFrames = 1000;
  const checkpointer = new Checkpointer(file, silent, {
    intervalMs: 20,
    maxWalFrames,
    catchUp: () => {
      catchUps += 1;
      restartWal(db);
    },
  });
  checkpointer.start();
  // A busy machine can take seconds to start the worker; until then nothing checkpoints.
  const started = Date.now() + 30_000;
  while (!checkpointer.lastReport() && Date.now() < started) await sleep(10);

  // Writes back to back (only a turn of the event loop between transactions, which is all a
  // loaded daemon gives): a passive checkpoint alone never lets the log start over, so the WAL
  // file only grows. With the writer restarting it, the log's frame count falls back again and
  // again and the file is reused instead of growing with what is written: it stays within a
  // few bounds' worth of frames while many times that is written. A worker starved of CPU by
  // other processes reports late and the log grows meanwhile (a loaded CI machine saw 42 MB of
  // the 33 MB below), so the file may take twice that; growing with the writes, it would pass
  // the 99 MB written.
  const fileBound = 8 * maxWalFrames * (4096 + 24);
  const allowedFile = 2 * fileBound;
  let written = 0;
  let fallbacks = 0;
  let lastLog = 0;
  let largestFile = 0;
  const deadline = Date.now() + 60_000;
  while ((fallbacks < 3 || written * 500 < 3 * fileBound) && Date.now() < deadline) {
    db.transaction(() => {
      for (let i = 0; i < 100; i += 1) insert.run('x'.repeat(500));
    })();
    written += 100;
    largestFile = Math.max(largestFile, statSync(`${file}-wal`).size);
    const log = checkpointer.lastReport()?.log ?? 0;
    if (log < lastLog) fallbacks += 1;
    lastLog = log;
    await new Promise((resolve) => setImmediate(resolve));
  }
  t.true(catchUps >= 3, `the writer was asked to restart the log (${catchUps} times)`);
  t.true(fallbacks >= 3, `the log started over while the writes went on (${fallbacks} times)`);
  t.true(
    largestFile <= allowedFile,
    `the WAL file (at most ${largestFile} bytes) stayed within ${allowedFile} bytes while ${written * 500} were written`,
  );

  await checkpointer.stop();
  t.is(storedRows(t, file, db), written);
});

test('a quiet checkpointer lets its worker go, and the next write starts one that checkpoints it', async (t) => {
  const { file, db, insert } = rowsStore(t);
  const checkpointer = new Checkpointer(file, silent, {
    intervalMs: 10,
    quietMs: 100,
    writes: writeCounter(db),
  });
  checkpointer.start();
  t.true(checkpointer.running, 'a worker starts with the checkpointer');
  const until = async (condition: () => boolean, what: string) => {
    // A busy machine can take seconds to start a worker: bounded by time, not by a count.
    const deadline = Date.now() + 30_000;
    while (!condition() && Date.now() < deadline) await sleep(10);
    t.true(condition(), what);
  };

  for (let i = 0; i < 50; i += 1) insert.run('x'.repeat(500));
  await until(() => !checkpointer.running, 'the worker exits once quiet');
  const copied = checkpointer.lastReport()!;
  t.true(copied.log > 0 && copied.checkpointed === copied.log, 'after copying every frame');

  for (let i = 0; i < 50; i += 1) insert.run('y'.repeat(500));
  await until(() => checkpointer.workersStarted === 2, 'the next write starts a worker again');
  await until(() => !checkpointer.running, 'which exits too once the new rows are copied');

  await checkpointer.stop();
  t.false(checkpointer.running);
  t.is(storedRows(t, file, db), 100);
});

test('stop() without start() and a second stop() do nothing', async (t) => {
  const dir = tempDir();
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const checkpointer = new Checkpointer(join(dir, 'none.db'), silent);
  await checkpointer.stop();
  await checkpointer.stop();
  t.is(checkpointer.lastReport(), undefined);
});

/** A store with 20 rows written before a daemon's checkpointer (firstWorkerOnWrite) starts. */
function writtenStore(t: ExecutionContext) {
  const { file, db, insert } = rowsStore(t);
  for (let i = 0; i < 20; i += 1) insert.run('before start');
  const checkpointer = new Checkpointer(file, silent, {
    intervalMs: 10,
    writes: writeCounter(db),
    firstWorkerOnWrite: true,
  });
  return { file, db, insert, checkpointer };
}

test('firstWorkerOnWrite: no worker at start; the first write starts one, which checkpoints what came before too', async (t) => {
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

test('firstWorkerOnWrite: stopped before any write, it never started a worker and the close keeps every row', async (t) => {
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
