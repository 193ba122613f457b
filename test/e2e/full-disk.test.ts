// A full disk never kills the daemon (issue 38, item 2): writes it cannot store answer 507
// insufficient_storage, reads keep answering, log lines that cannot be written are dropped and
// counted, and once space is back writes succeed again without a restart; nothing acknowledged
// is lost (a run whose step finished while the disk was full finishes after).
//
// How the disk fills: the running daemon's RLIMIT_FSIZE is lowered with `prlimit --pid`
// (util-linux) just above the size of its files, and its log is padded up to the limit. Every
// write past the limit then fails for real, in the kernel: a write cut short (SQLite answers
// SQLITE_FULL), then EFBIG (SQLITE_IOERR_WRITE; the log's writes), which are what a full file
// system gives (ENOSPC) but for the errno. It needs no root (a small tmpfs would), it covers
// every writer at once (the store, its checkpoint thread, the log), unlike /dev/full (the log
// only) or PRAGMA max_page_count (the store only), and raising the limit again is "space was
// freed" for the running process. Node ignores SIGXFSZ, so passing the limit does not kill it.
import test from 'ava';
import Database from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import { appendFileSync, readFileSync, statSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { dataDirFiles } from '../../shared/paths.js';
import { startDaemon } from '../helpers/daemon.js';
import { closeServer, listenLocally } from '../helpers/local-server.js';
import { apiFor, createWorkflow, waitForExecution } from '../helpers/workflows.js';

/** Each run's input: as in the report, 200 KB. */
const BIG = 'x'.repeat(200_000);
/** The held webhook's answer: 60 KB (a step keeps up to 64 KB of one). */
const ANSWER = JSON.stringify({ ok: true, pad: 'y'.repeat(60_000) });
/** Room left under the limit above the largest file when the limit is set. */
const HEADROOM = 1024 * 1024;

function fileSizeLimit(pid: number, limit: number | 'unlimited'): void {
  // The soft limit only ("N:"): the hard one stays, so the limit can be raised again.
  execFileSync('prlimit', ['--pid', String(pid), `--fsize=${limit}:`], { stdio: 'pipe' });
}

const sizeOf = (file: string) => {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
};

/** A webhook receiver that holds every request until released. */
async function gate() {
  const held: ServerResponse[] = [];
  let arrived: () => void = () => undefined;
  const first = new Promise<void>((resolve) => (arrived = resolve));
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      held.push(response);
      arrived();
    });
  });
  const origin = await listenLocally(server);
  return {
    url: `${origin}/hook`,
    first,
    release: () => held.splice(0).forEach((response) => response.end(ANSWER)),
    close: () => closeServer(server),
  };
}

test('a full disk: writes answer 507, reads answer, the daemon stays up and recovers when space is freed', async (t) => {
  // Megabytes of real writes and a run that waits out its retry pause: more than the default
  // on a loaded machine.
  t.timeout(180_000);
  const d = await startDaemon();
  const receiver = await gate();
  t.teardown(async () => {
    try {
      fileSizeLimit(d.pid, 'unlimited');
    } catch {
      // The daemon has already stopped.
    }
    await receiver.close();
    await d.stop();
  });
  const { workspaceId } = await d.operator();
  const api = await apiFor(d, workspaceId);
  const checkStep = {
    id: 'check',
    name: 'Check',
    type: 'condition',
    config: { condition: 'true', if_true: null, if_false: null },
  };
  const big = await createWorkflow(api, {
    name: 'Big inputs',
    status: 'active',
    steps: [checkStep],
  });
  const held = await createWorkflow(api, {
    name: 'Held call',
    status: 'active',
    steps: [
      { id: 'call', name: 'Call', type: 'webhook', config: { url: receiver.url, method: 'POST' } },
    ],
  });
  // A run acknowledged before the disk fills, its webhook step held until it is full.
  const inFlight = await api('POST', `/workflows/${held}/execute`, { input: {} });
  t.is(inFlight.status, 202, JSON.stringify(inFlight.body));
  const heldId = inFlight.body.data.execution_id as string;
  await receiver.first;

  // The disk fills: the limit just above the largest file, the log padded up to it.
  const files = dataDirFiles(d.dataDir);
  const store = [files.database, `${files.database}-wal`, `${files.database}-shm`];
  const limit = Math.max(...store.map(sizeOf), sizeOf(files.log)) + HEADROOM;
  fileSizeLimit(d.pid, limit);
  const padLine = JSON.stringify({ level: 'info', msg: 'padding written by the test' }) + '\n';
  const padding = limit - 1024 - sizeOf(files.log);
  appendFileSync(files.log, padLine.repeat(Math.floor(padding / padLine.length)));

  const acknowledged: string[] = [];
  const refusals: { status: number; body: any }[] = [];
  // Runs until one is refused, then smaller ones until they are too: the last few KB are used
  // up, so the held step's outcome (its 60 KB answer) cannot be stored.
  for (const size of [BIG.length, 50_000, 10_000, 2_000]) {
    for (let n = 0; n < 200; n += 1) {
      const input = { big: BIG.slice(0, size), n };
      const run = await api('POST', `/workflows/${big}/execute`, { input });
      if (run.status !== 202) {
        refusals.push(run);
        break;
      }
      acknowledged.push(run.body.data.execution_id);
    }
  }
  t.is(refusals.length, 4, 'the runs filled the disk');
  t.log(`${acknowledged.length} runs acknowledged before the disk was full (limit ${limit} bytes)`);
  const refused = refusals[0]!;
  t.is(refused.status, 507, JSON.stringify(refused.body));
  t.is(refused.body.error.code, 'insufficient_storage');
  t.is(refused.body.error.type, 'server_error');
  t.true(refused.body.error.message.includes(d.dataDir), refused.body.error.message);
  t.regex(refused.body.error.message, /Free space/);
  t.truthy(refused.body.error.request_id);

  // The step's outcome comes back now: it cannot be stored yet.
  receiver.release();
  // The next ones are refused the same way, and the daemon stays up. (A write small enough for
  // what is left under the limit could still be stored, as on a nearly full disk.)
  for (let n = 0; n < 5; n += 1) {
    const again = await api('POST', `/workflows/${big}/execute`, { input: { big: BIG, n } });
    t.is(again.status, 507, JSON.stringify(again.body));
  }
  // The daemon of the report was gone within a fraction of a second: it is still here after 1 s.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  t.notThrows(() => process.kill(d.pid, 0), 'the daemon process is alive');

  // Reads answer meanwhile: health, lists, a run with its 200 KB input.
  t.is((await fetch(`${d.url}/healthz`)).status, 200);
  const listed = await api('GET', `/workflows/${big}/executions?limit=100`);
  t.is(listed.status, 200);
  t.is(listed.body.data.length, acknowledged.length);
  const first = await api('GET', `/workflows/${big}/executions/${acknowledged[0]}`);
  t.is(first.status, 200);
  t.is(first.body.data.input.big.length, BIG.length);
  // Its 60 KB outcome is refused, unless room opened meanwhile (seen under load: the run had
  // completed here; most likely a checkpoint copied the WAL into the database file, which may
  // still grow under the limit, and SQLite started the WAL over). That is the checkpoint
  // thread's timing, not a promise of the daemon's; the promise is that the run is neither
  // lost nor failed, either way.
  const heldRun = await api('GET', `/workflows/${held}/executions/${heldId}`);
  t.true(
    ['running', 'completed'].includes(heldRun.body.data.status),
    `the held run is neither lost nor failed: ${JSON.stringify(heldRun.body.data)}`,
  );
  t.log(`the held run while the disk was full: ${heldRun.body.data.status}`);
  const cli = await d.cli(['workflows', 'list', '--json']);
  t.is(cli.code, 0, cli.stderr);

  // Space is freed: writes succeed again, without a restart.
  fileSizeLimit(d.pid, 'unlimited');
  const after = await api('POST', `/workflows/${big}/execute`, { input: { big: BIG, n: -1 } });
  t.is(after.status, 202, JSON.stringify(after.body));
  acknowledged.push(after.body.data.execution_id);
  // The held run's step outcome, kept while the disk was full, is stored: the run finishes.
  const finished = await waitForExecution(
    api,
    held,
    heldId,
    (execution) => execution.status !== 'running',
    40_000,
  );
  t.is(finished.status, 'completed', JSON.stringify(finished));

  // The log says how many lines it lost, and every line in it is whole JSON.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const lines = readFileSync(files.log, 'utf8').split('\n').filter(Boolean);
  const broken = lines.filter((line) => {
    try {
      JSON.parse(line);
      return false;
    } catch {
      return true;
    }
  });
  t.deepEqual(broken, [], 'no half-written line');
  const reports = lines.map((line) => JSON.parse(line)).filter((entry) => entry.dropped_lines > 0);
  t.true(reports.length > 0, 'a line counts the dropped log lines');
  const dropped = reports.reduce((sum, entry) => sum + entry.dropped_lines, 0);
  t.log(`log: ${dropped} lines dropped, said in ${reports.length} lines (${reports[0]?.err})`);

  // Nothing acknowledged is lost, and the store is intact.
  for (const id of acknowledged) {
    const run = await api('GET', `/workflows/${big}/executions/${id}`);
    t.is(run.status, 200, id);
    t.is(run.body.data.status, 'completed', id);
  }
  await d.cli(['daemon', 'stop']);
  const db = new Database(join(d.dataDir, 'svc.db'), { readonly: true });
  t.is(db.pragma('integrity_check', { simple: true }), 'ok');
  db.close();
});
