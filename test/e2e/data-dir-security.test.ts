// The data dir is private and a crash does not hold it (issue 10, items 9 and 11): the daemon
// creates it 0700 with every file 0600 (database, WAL, logs, lock, runtime file, keys),
// tightens a data dir made earlier with looser modes (and says so in its log), and takes over
// at once a lock left by a killed daemon or by a pid that is no svc daemon. A data dir it cannot
// write (read-only, under a file) is one line naming the path and the real cause (issue 38).
import test, { type ExecutionContext } from 'ava';
import { spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/daemon.js';
import { waitForLog } from '../helpers/logs.js';

function dataDir(t: { teardown(fn: () => void): void }, create = true): string {
  const parent = mkdtempSync(join(tmpdir(), 'svc-modes-'));
  const dir = join(parent, 'data');
  if (create) mkdirSync(dir);
  t.teardown(() => {
    void runCli(['daemon', 'stop'], { env: { SVC_DATA_DIR: dir } }).finally(() =>
      rmSync(parent, { recursive: true, force: true }),
    );
  });
  return dir;
}

function cli(dir: string, args: string[]) {
  return runCli(args, { env: { SVC_DATA_DIR: dir } });
}

/** Every path under dir (dir included) with its permission bits. */
function modes(dir: string): Map<string, number> {
  const found = new Map<string, number>([[dir, statSync(dir).mode & 0o777]]);
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath, entry.name);
    found.set(path, statSync(path).mode & 0o777);
  }
  return found;
}

function logMentions(dir: string, pattern: RegExp): Promise<boolean> {
  return waitForLog(dir, (log) => pattern.test(log));
}

function assertPrivate(t: { is(a: unknown, b: unknown, m?: string): void }, dir: string) {
  for (const [path, mode] of modes(dir)) {
    const isDir = statSync(path).isDirectory();
    t.is(mode, isDir ? 0o700 : 0o600, `${path} is ${mode.toString(8)}`);
  }
}

test('a new data dir is 0700 and every file the daemon writes in it is 0600', async (t) => {
  const dir = dataDir(t, false);
  const started = await cli(dir, ['daemon', 'start', '--port', '0', '--json']);
  t.is(started.code, 0, started.stderr);
  // Writes, so that the database has its WAL, and a listen secret in cli-state.json.
  const created = await cli(dir, [
    'workspaces',
    'create',
    '--name',
    'Modes',
    '--tier',
    'free',
    '--json',
  ]);
  t.is(created.code, 0, created.stderr);
  t.true(await logMentions(dir, /svc daemon listening/));
  const files = [...modes(dir).keys()].map((path) => path.slice(dir.length + 1));
  for (const expected of [
    'svc.db',
    'svc.db-wal',
    'daemon.lock',
    'daemon.json',
    'control-token',
    'secret.key',
    'logs',
    'logs/daemon.log',
  ]) {
    t.true(files.includes(expected), `${expected} missing from ${files.join(', ')}`);
  }
  assertPrivate(t, dir);
});

test('an existing data dir with loose modes is tightened at start, and the log says so', async (t) => {
  const dir = dataDir(t);
  mkdirSync(join(dir, 'logs'));
  writeFileSync(join(dir, 'logs', 'daemon.log'), '');
  writeFileSync(join(dir, 'cli-state.json'), '{}');
  writeFileSync(join(dir, 'notes.txt'), 'not svc state');
  chmodSync(dir, 0o755);
  chmodSync(join(dir, 'logs'), 0o755);
  chmodSync(join(dir, 'logs', 'daemon.log'), 0o644);
  chmodSync(join(dir, 'cli-state.json'), 0o644);
  chmodSync(join(dir, 'notes.txt'), 0o644);

  const started = await cli(dir, ['daemon', 'start', '--port', '0', '--json']);
  t.is(started.code, 0, started.stderr);
  t.true(await logMentions(dir, /tightened data dir permissions/));
  // A file svc does not own is left as it was.
  t.is(statSync(join(dir, 'notes.txt')).mode & 0o777, 0o644);
  rmSync(join(dir, 'notes.txt'));
  assertPrivate(t, dir);
});

test('a daemon killed with SIGKILL: the next start takes the stale lock over at once, with a log line', async (t) => {
  const dir = dataDir(t);
  const first = await cli(dir, ['daemon', 'start', '--port', '0', '--json']);
  t.is(first.code, 0, first.stderr);
  const { pid } = first.json<{ pid: number }>();
  process.kill(pid, 'SIGKILL');
  // No waiting for the pid to disappear: a killed process can stay a zombie for a while.
  const second = await cli(dir, ['daemon', 'start', '--port', '0', '--json']);
  t.is(second.code, 0, `${second.stderr}${second.stdout}`);
  t.not(second.json<{ pid: number }>().pid, pid);
  t.true(await logMentions(dir, /taking over a stale lock/));
});

test('a lock and runtime file naming a live process that is no svc daemon are taken over; stop leaves that process alone', async (t) => {
  const dir = dataDir(t);
  // Alive until the teardown kills it: a `sleep 60` ended on its own, exit 0, when a daemon
  // start and stop under load took longer than that (it read as "signalled").
  const stranger = spawn('sleep', ['infinity'], { stdio: 'ignore' });
  t.teardown(() => stranger.kill());
  const pid = stranger.pid!;
  writeFileSync(join(dir, 'daemon.lock'), String(pid));
  writeFileSync(
    join(dir, 'daemon.json'),
    JSON.stringify({ pid, url: 'http://127.0.0.1:9', host: '127.0.0.1', port: 9 }),
  );
  const started = await cli(dir, ['daemon', 'start', '--port', '0', '--json']);
  t.is(started.code, 0, `${started.stderr}${started.stdout}`);
  t.true(await logMentions(dir, new RegExp(`"stale_pid":${pid}`)));
  const stopped = await cli(dir, ['daemon', 'stop', '--json']);
  t.is(stopped.code, 0, stopped.stderr);
  t.is(stranger.exitCode, null, 'the stranger process was signalled');
  t.is(stranger.signalCode, null);
});

/**
 * `svc daemon start` on a data dir it cannot use, in the background (the CLI prepares the data
 * dir) and in the foreground (the daemon does): exit 1, the cause in one line that names the
 * path and the errno, and no stack.
 */
async function assertRefusedStart(t: ExecutionContext, dir: string, cause: RegExp): Promise<void> {
  for (const mode of [[], ['--foreground']]) {
    const started = await cli(dir, ['daemon', 'start', '--port', '0', ...mode]);
    const output = `${started.stderr}${started.stdout}`;
    t.is(started.code, 1, output);
    const lines = output.trim().split('\n');
    // The foreground CLI adds its own line about the daemon's exit code after it.
    t.true(lines.length <= 2, output);
    t.true(lines[0]!.includes(`Cannot use the data dir ${dir}`), output);
    t.regex(lines[0]!, cause);
    t.false(/^\s+at /m.test(output), `no stack: ${output}`);
    t.log(lines[0]);
  }
}

const isRoot = process.getuid?.() === 0;

test('a data dir under a file: one line naming the path and the cause (ENOTDIR), exit 1', async (t) => {
  const parent = mkdtempSync(join(tmpdir(), 'svc-unwritable-'));
  t.teardown(() => rmSync(parent, { recursive: true, force: true }));
  writeFileSync(join(parent, 'file'), '');
  await assertRefusedStart(t, join(parent, 'file', 'data'), /not a directory.*ENOTDIR/);
});

test('a read-only data dir, or one under a read-only parent: one line with the real cause (EACCES), exit 1', async (t) => {
  const parent = mkdtempSync(join(tmpdir(), 'svc-unwritable-'));
  const readOnly = join(parent, 'read-only');
  t.teardown(() => {
    for (const path of [parent, readOnly]) if (existsSync(path)) chmodSync(path, 0o700);
    rmSync(parent, { recursive: true, force: true });
  });
  if (isRoot) {
    // Permission bits do not stop root: no directory can be made read-only this way.
    t.log('running as root: chmod 0555 does not make a directory read-only; checked as non-root');
    t.pass();
    return;
  }
  mkdirSync(join(readOnly, 'logs'), { recursive: true });
  chmodSync(join(readOnly, 'logs'), 0o555);
  chmodSync(readOnly, 0o555);
  await assertRefusedStart(t, readOnly, /permission denied.*EACCES/);
  // Node's recursive mkdir said ENOENT here, hiding the cause.
  chmodSync(parent, 0o555);
  await assertRefusedStart(t, join(parent, 'new', 'data'), /permission denied.*EACCES/);
});
