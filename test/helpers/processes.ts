// The daemon as a process: where the daemon of a data dir runs now (it changes at each start),
// starting it again, and waiting for it to be gone. `svc daemon start` detaches the daemon, so
// it is no child of the test and Node gives no `exit` event for it: its end is seen by asking
// the OS (kill -0), in one bounded wait here.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestFn } from 'ava';
import { pidExists } from '../../shared/process.js';
import { control } from './api.js';
import { runCli, startDaemon, type TestDaemon } from './daemon.js';
import { HANG_TIMEOUT_MS } from './waiting.js';

export interface Running {
  url: string;
  pid: number;
  /** The control token of this run (a new one at each start). */
  token: string;
}

/** Where the daemon of this data dir runs now (daemon.json) and its control token. */
export function running(d: Pick<TestDaemon, 'dataDir'>): Running {
  const runtime = JSON.parse(readFileSync(join(d.dataDir, 'daemon.json'), 'utf8')) as {
    url: string;
    pid: number;
  };
  const token = readFileSync(join(d.dataDir, 'control-token'), 'utf8').trim();
  return { url: runtime.url, pid: runtime.pid, token };
}

/** `svc daemon start` again on the daemon's data dir; where it runs now. */
export async function restart(d: Pick<TestDaemon, 'dataDir' | 'env'>): Promise<Running> {
  const started = await runCli(['daemon', 'start', '--port', '0', '--json'], { env: d.env });
  if (started.code !== 0) {
    throw new Error(`restart failed (exit ${started.code}): ${started.stderr}${started.stdout}`);
  }
  return running(d);
}

/** Whether the process exists (the daemon's own check, which a zombie passes too). */
export const isAlive = pidExists;

/**
 * Resolves true once the process is gone, false after `timeoutMs`. The one real-time poll of
 * the tests: a process that is not our child has no exit event to wait on.
 */
export async function waitForExit(pid: number, timeoutMs = HANG_TIMEOUT_MS): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

/** SIGKILL, and back once the process is gone (throws if it survives). */
export async function killHard(pid: number): Promise<void> {
  process.kill(pid, 'SIGKILL');
  if (!(await waitForExit(pid))) throw new Error(`daemon ${pid} survived SIGKILL`);
}

/**
 * Daemons the tests of a file start for themselves (to kill and restart at will), each stopped
 * (whatever runs on its data dir by then) once the file is done. Answers the starter.
 */
export function daemonsOfFile(test: TestFn): () => Promise<TestDaemon> {
  const daemons: TestDaemon[] = [];
  test.after.always(async () => {
    await Promise.all(daemons.map((d) => d.stop()));
  });
  return async () => {
    const d = await startDaemon();
    daemons.push(d);
    return d;
  };
}

/**
 * JSON REST with the operator credential on whichever daemon runs on `d`'s data dir now (its
 * address and credential change at each start): `rest(method, path, body?)`, paths under
 * `prefix`. Answers the status and the parsed body.
 */
export function restNow(d: Pick<TestDaemon, 'dataDir'>, prefix = '') {
  let cached: { at: string; key: string; ws: string } | undefined;
  return async (method: string, path: string, body?: unknown) => {
    const at = running(d);
    if (!cached || cached.at !== at.url) {
      const credential = await control<{ key: string; default_workspace_id: string }>(
        at,
        'auth.operatorCredential',
      );
      cached = { at: at.url, key: credential.key, ws: credential.default_workspace_id };
    }
    const response = await fetch(`${at.url}${prefix}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${cached.key}`,
        'x-tenant-id': cached.ws,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };
}
