// `svc daemon start --foreground` under a supervisor that signals the whole process group
// (issue 20, item 2): the CLI and the daemon both get the signal, and the CLI passes it on. A
// SIGTERM or SIGINT, once or twice, to the group, the CLI or the daemon, ends in the graceful
// stop: exit code 0, "stopping" and "stopped" logged, every acknowledged write still there
// after a restart. Each start is in its own process group (detached), on one data dir.
import test, { type ExecutionContext } from 'ava';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { control } from '../helpers/api.js';
import { ROOT, runCli, SVC_BIN } from '../helpers/daemon.js';

const dataDir = mkdtempSync(join(tmpdir(), 'svc-signals-'));
const env = { ...process.env, NO_COLOR: '1', CI: 'true', SVC_DATA_DIR: dataDir };
/** Agents whose creation the daemon acknowledged (201), across every start. */
const acknowledged: string[] = [];

test.after.always(() => rmSync(dataDir, { recursive: true, force: true }));

interface Foreground {
  child: ChildProcess;
  /** Everything the CLI (and the daemon's log on it) printed so far. */
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves with the daemon's URL once it logs that it listens (undefined if it exits first). */
  listening: Promise<string | undefined>;
}

/** `svc daemon start --foreground` in a process group of its own. */
function startForeground(t: ExecutionContext): Foreground {
  const child = spawn(
    process.execPath,
    [SVC_BIN, 'daemon', 'start', '--foreground', '--port', '0'],
    { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const exited = once(child, 'exit').then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
  }));
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) killGroup(child, 'SIGKILL');
  });
  const listening = new Promise<string | undefined>((resolve) => {
    const look = (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split('\n').find((l) => l.includes('"msg":"svc daemon listening"'));
      if (line) resolve((JSON.parse(line) as { url: string }).url);
    };
    child.stdout!.on('data', look);
    child.stderr!.on('data', look);
    void exited.then(() => resolve(undefined));
  });
  return { child, output: () => output, exited, listening };
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // The group is gone already.
  }
}

/**
 * Resolves once the CLI has spawned the daemon (Linux: /proc lists a process's children), so
 * the CLI's own code runs: a signal during Node's boot, before any JavaScript, kills any
 * Node process outright, and the CLI cannot be asked to answer that one.
 */
async function spawnedChild(pid: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    try {
      if (readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim() !== '') return;
    } catch {
      return; // Gone already: the exit code tells.
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`svc daemon start --foreground (pid ${pid}) spawned no daemon within 30 s`);
}

/** The pid of the daemon the foreground CLI runs (its runtime file). */
function daemonPid(): number {
  return (JSON.parse(readFileSync(join(dataDir, 'daemon.json'), 'utf8')) as { pid: number }).pid;
}

/**
 * Creates agents from `workers` loops until the daemon stops answering; every 201 is recorded
 * as acknowledged. Resolves once all loops have ended.
 */
async function createAgents(url: string, tag: string, workers = 4): Promise<number> {
  const credential = await control<{ key: string; default_workspace_id: string }>(
    { url, dataDir },
    'auth.operatorCredential',
  );
  const headers = {
    authorization: `Bearer ${credential.key}`,
    'x-tenant-id': credential.default_workspace_id,
    'content-type': 'application/json',
  };
  let created = 0;
  const loop = async (worker: number) => {
    for (let n = 0; ; n++) {
      let answer: Response;
      try {
        answer = await fetch(`${url}/v1/agents`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ name: `${tag}-${worker}-${n}`, ontology: 'retail-v1' }),
        });
      } catch {
        return; // Connection refused or reset: the daemon has stopped.
      }
      const body = (await answer.json().catch(() => undefined)) as
        { data?: { id: string } } | undefined;
      if (answer.status !== 201 || !body?.data) return;
      acknowledged.push(body.data.id);
      created += 1;
    }
  };
  await Promise.all(Array.from({ length: workers }, (_, worker) => loop(worker)));
  return created;
}

/** The stop was graceful: exit code 0, the closing lines, no forced exit. */
function assertGraceful(t: ExecutionContext, fg: Foreground, exit: { code: number | null }) {
  const output = fg.output();
  t.is(exit.code, 0, output);
  t.false(output.includes('forced to exit'), output);
  if (output.includes('svc daemon listening')) {
    t.true(output.includes('"msg":"svc daemon stopping"'), output);
    t.true(output.includes('"msg":"svc daemon stopped"'), output);
  }
}

const LOOPS = 20;

test.serial(
  `SIGTERM to the process group ${LOOPS} times, with writes in flight: exit 0, logged, nothing acknowledged lost`,
  async (t) => {
    for (let i = 0; i < LOOPS; i++) {
      const fg = startForeground(t);
      // Every fifth start is signalled while the daemon starts: 0, 150, 300 and 450 ms after the
      // CLI spawned it (Node booting, the daemon loading its modules, opening the store).
      if (i % 5 === 0) {
        await spawnedChild(fg.child.pid!);
        await new Promise((resolve) => setTimeout(resolve, (i / 5) * 150));
        killGroup(fg.child, 'SIGTERM');
        assertGraceful(t, fg, await fg.exited);
        continue;
      }
      const url = await fg.listening;
      t.truthy(url, fg.output());
      const writes = createAgents(url!, `loop${i}`);
      // Let some writes be acknowledged, then signal while others are in flight.
      await new Promise((resolve) => setTimeout(resolve, 30 + (i % 4) * 40));
      killGroup(fg.child, 'SIGTERM');
      const [exit] = await Promise.all([fg.exited, writes]);
      assertGraceful(t, fg, exit);
    }
    t.true(acknowledged.length > 0);
  },
);

test.serial('SIGTERM twice to the group: still the graceful stop, exit 0', async (t) => {
  const fg = startForeground(t);
  const url = await fg.listening;
  t.truthy(url, fg.output());
  const writes = createAgents(url!, 'twice');
  await new Promise((resolve) => setTimeout(resolve, 50));
  killGroup(fg.child, 'SIGTERM');
  // Apart, so that the kernel does not merge the second into the first while it is pending.
  await new Promise((resolve) => setTimeout(resolve, 20));
  killGroup(fg.child, 'SIGTERM');
  const [exit] = await Promise.all([fg.exited, writes]);
  assertGraceful(t, fg, exit);
});

test.serial('SIGINT to the group (Ctrl-C): the graceful stop, exit 0', async (t) => {
  const fg = startForeground(t);
  const url = await fg.listening;
  t.truthy(url, fg.output());
  const writes = createAgents(url!, 'sigint');
  await new Promise((resolve) => setTimeout(resolve, 50));
  killGroup(fg.child, 'SIGINT');
  const [exit] = await Promise.all([fg.exited, writes]);
  assertGraceful(t, fg, exit);
});

test.serial(
  'SIGTERM to the CLI alone, and twice to the daemon alone: the graceful stop, exit 0',
  async (t) => {
    const toCli = startForeground(t);
    t.truthy(await toCli.listening, toCli.output());
    toCli.child.kill('SIGTERM');
    assertGraceful(t, toCli, await toCli.exited);

    const toDaemon = startForeground(t);
    t.truthy(await toDaemon.listening, toDaemon.output());
    const pid = daemonPid();
    process.kill(pid, 'SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 20));
    process.kill(pid, 'SIGTERM');
    assertGraceful(t, toDaemon, await toDaemon.exited);
  },
);

test.serial('every acknowledged write is there after a restart', async (t) => {
  t.true(acknowledged.length > 0, 'the tests before wrote something');
  const started = await runCli(['daemon', 'start', '--port', '0', '--json'], { env });
  t.is(started.code, 0, started.stderr);
  const { url } = started.json<{ url: string }>();
  t.teardown(async () => {
    await runCli(['daemon', 'stop'], { env });
  });
  const credential = await control<{ key: string; default_workspace_id: string }>(
    { url, dataDir },
    'auth.operatorCredential',
  );
  const missing: string[] = [];
  for (let i = 0; i < acknowledged.length; i += 20) {
    await Promise.all(
      acknowledged.slice(i, i + 20).map(async (id) => {
        const answer = await fetch(`${url}/v1/agents/${id}`, {
          headers: {
            authorization: `Bearer ${credential.key}`,
            'x-tenant-id': credential.default_workspace_id,
          },
        });
        if (answer.status !== 200) missing.push(`${id} (${answer.status})`);
      }),
    );
  }
  t.deepEqual(missing, [], `${missing.length} of ${acknowledged.length} acknowledged agents lost`);
});
