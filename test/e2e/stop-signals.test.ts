// A signal always stops the daemon cleanly: `svc daemon start --foreground` under a supervisor
// that signals its whole process group (docker stop, systemd, CI runners, `timeout`), once or
// twice, at any moment from start-up to a daemon busy with requests, exits 0 with the closing
// log lines, and nothing it acknowledged is lost. Only a third signal forces the exit.
import test from 'ava';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { control } from '../helpers/api.js';
import { runCli, SVC_BIN } from '../helpers/daemon.js';
import { svcEnv } from '../helpers/env.js';
import { readLog } from '../helpers/logs.js';
import { restart, restNow } from '../helpers/processes.js';

interface Foreground {
  child: ChildProcess;
  /** What the CLI wrote on stderr. */
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `svc daemon start --foreground` as the leader of a process group of its own. */
function startForeground(dataDir: string): Foreground {
  const child = spawn(process.execPath, [SVC_BIN, 'daemon', 'start', '--foreground'], {
    env: svcEnv({ SVC_DATA_DIR: dataDir, SVC_PORT: '0', CI: 'true' }),
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, exited, stderr: () => stderr };
}

/**
 * Once the foreground CLI `pid` is loading the daemon, which runs inside it: it opens its store.
 * On SQLite, the store's native module (better-sqlite3's binary, loaded by the first open) is
 * mapped into the process (Linux /proc); on PostgreSQL (SVC_STORE_URL, the e2e pass there),
 * which loads no native module, the process holds a TCP connection to the server's port. Before
 * the CLI's JavaScript runs, Node's own start-up has only the default action for a signal, in
 * any process.
 */
async function daemonLoading(pid: number): Promise<void> {
  const store = process.env.SVC_STORE_URL;
  const opened = store
    ? () => connectedTo(pid, Number(new URL(store).port || 5432))
    : () =>
        // better-sqlite3 13 maps its prebuilt binary (node_modules/better-sqlite3/prebuilds/...).
        readFileSync(`/proc/${pid}/maps`, 'utf8').includes('/better-sqlite3/');
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (opened()) return;
    await sleep(5);
  }
  throw new Error('the foreground CLI did not load the daemon within 30 s');
}

/** Whether process `pid` has a TCP connection to `port` (its sockets' inodes in /proc/net/tcp*). */
function connectedTo(pid: number, port: number): boolean {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode) inodes.add(inode);
    } catch {
      // closed meanwhile
    }
  }
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  return ['tcp', 'tcp6'].some((table) =>
    readFileSync(`/proc/${pid}/net/${table}`, 'utf8')
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      .some((fields) => fields[2]?.endsWith(`:${hex}`) && inodes.has(fields[9] ?? '')),
  );
}

/** The daemon's URL once it answers /healthz (its runtime file names it). */
async function ready(dataDir: string): Promise<string> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const file = join(dataDir, 'daemon.json');
    if (existsSync(file)) {
      try {
        const { url } = JSON.parse(readFileSync(file, 'utf8')) as { url: string };
        if ((await fetch(`${url}/healthz`)).ok) return url;
      } catch {
        // not written whole yet, or not listening yet
      }
    }
    await sleep(20);
  }
  throw new Error('the foreground daemon did not become ready within 30 s');
}

/** Creates agents over REST until `until` settles; answers the ids of those acknowledged. */
async function createAgentsUntil(url: string, dataDir: string, until: Promise<unknown>) {
  const { key, default_workspace_id: tenant } = await control<{
    key: string;
    default_workspace_id: string;
  }>({ url, dataDir }, 'auth.operatorCredential');
  const acknowledged: string[] = [];
  let done = false;
  void until.then(() => (done = true));
  const worker = async () => {
    while (!done) {
      try {
        const response = await fetch(`${url}/v1/agents`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${key}`,
            'x-tenant-id': tenant,
            'content-type': 'application/json',
          },
          body: JSON.stringify({
            name: 'In flight',
            ontology: 'retail-v1',
            type: 'customer-service',
            autonomy_level: 'L3',
          }),
        });
        if (response.status === 201) {
          acknowledged.push(((await response.json()) as { data: { id: string } }).data.id);
        }
      } catch {
        // the daemon closed the connection: that request was not acknowledged
      }
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  return acknowledged;
}

/** A second signal may come after the first one has already stopped everything: a no-op then. */
function lateSignal(group: number, signal: NodeJS.Signals): void {
  try {
    process.kill(group, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

function closingLines(t: import('ava').ExecutionContext, dataDir: string, label: string) {
  const log = readLog(dataDir);
  t.regex(log, /svc daemon stopping/, `${label}: "stopping" logged`);
  t.regex(log, /svc daemon stopped/, `${label}: "stopped" logged`);
  t.notRegex(log, /forced to exit/, `${label}: not forced`);
}

test.serial(
  'a group SIGTERM, once or twice, at any moment with work in flight, stops the foreground daemon cleanly (exit 0); nothing acknowledged is lost',
  async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-e2e-signals-'));
    t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
    const acknowledged: string[] = [];
    const rounds = 20;
    for (let round = 0; round < rounds; round += 1) {
      const label = `round ${round + 1}`;
      const daemon = startForeground(dataDir);
      const group = -daemon.child.pid!;
      if (round % 5 === 0) {
        // While it starts: from the moment the CLI loads the daemon (before the CLI's own
        // JavaScript runs, Node's start-up has no way to handle a signal) through the daemon's
        // loading and start-up, before it listens.
        await daemonLoading(daemon.child.pid!);
        await sleep((round / 5) * 100);
        process.kill(group, 'SIGTERM');
      } else {
        const url = await ready(dataDir);
        const stopped = daemon.exited;
        const inFlight = createAgentsUntil(url, dataDir, stopped);
        await sleep(150);
        process.kill(group, 'SIGTERM');
        // Every other round the supervisor sends its signal twice.
        if (round % 2 === 1) {
          await sleep(30);
          lateSignal(group, round % 4 === 1 ? 'SIGINT' : 'SIGTERM');
        }
        acknowledged.push(...(await inFlight));
      }
      const { code, signal } = await daemon.exited;
      t.log(`${label}: exit ${code}`);
      t.is(signal, null, `${label}: the CLI was not killed by the signal`);
      t.is(code, 0, `${label}: exit code\n${daemon.stderr()}\n${readLog(dataDir).slice(-1000)}`);
      if (round % 5 !== 0) closingLines(t, dataDir, label);
    }
    t.true(acknowledged.length > 0, 'requests were acknowledged while the signals came');
    t.log(`${acknowledged.length} acknowledged; restarting to check them`);

    const env = { SVC_DATA_DIR: dataDir };
    await restart({ dataDir, env });
    t.teardown(async () => void (await runCli(['daemon', 'stop'], { env })));
    const rest = restNow({ dataDir });
    for (const id of acknowledged) {
      const got = await rest('GET', `/v1/agents/${id}`);
      t.is(got.status, 200, `acknowledged agent ${id} is stored`);
    }
  },
);

test.serial('a third signal forces the exit and the log says so', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-e2e-signals-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const daemon = startForeground(dataDir);
  await ready(dataDir);
  const group = -daemon.child.pid!;
  for (let i = 0; i < 3; i += 1) process.kill(group, 'SIGTERM');
  const { code } = await daemon.exited;
  // Either the graceful stop won the race and the third signal found nothing to force, or the
  // exit was forced: never a silent kill.
  const log = readLog(dataDir);
  if (/forced to exit/.test(log)) t.is(code, 1);
  else {
    t.is(code, 0);
    closingLines(t, dataDir, 'three signals');
  }
});
