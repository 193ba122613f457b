// End-to-end helper: a real daemon (spawned through the real CLI, on port 0, in a fresh temp
// data dir) and a way to run the real CLI against it. What they start is killed when the test
// file's process ends without stopping it (a file ava timed out): see reaper.ts.
import { spawn, type SpawnOptions } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseDuration } from '../../shared/duration.js';
import { dataDirFiles } from '../../shared/paths.js';
import { isAlive, isSvcDaemon } from '../../shared/process.js';
import { parseScopes } from '../../shared/scopes.js';
import { launchDaemon } from '../../cli/daemon-process.js';
import { control } from './api.js';
import { svcEnv } from './env.js';
import { forgetDataDir, reapChild, reapDataDir } from './reaper.js';

export const ROOT = resolve(import.meta.dirname, '..', '..');
export const SVC_BIN = join(ROOT, 'bin', 'svc.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (when the command ran with --json). */
  json<T = any>(): T;
}

/**
 * How long runCli lets a CLI process run before it fails the test: a guard against a hang only.
 * At load 45-60 on a 2-core machine (three gates and four CPU hogs), one `svc events trigger`
 * took 45-77 s from spawn to exit, 13-20 s of it after its output was printed (the process's
 * own teardown), so the 60 s this was failed CLI calls that had done their work. 4 minutes
 * stays inside ava's 5-minute timeout.
 */
export const RUN_CLI_HANG_MS = 240_000;

/** Runs `svc <args>` with the data dir of the given daemon (or an explicit env). */
export function runCli(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const spawnOptions: SpawnOptions = {
      cwd: ROOT,
      env: svcEnv({ NO_COLOR: '1', CI: 'true', ...options.env }),
      stdio: ['pipe', 'pipe', 'pipe'],
    };
    const child = spawn(process.execPath, [SVC_BIN, ...args], spawnOptions);
    reapChild(child);
    // A daemon this call starts (or restarts) is found and killed through its data dir if the
    // test file's process ends before stopping it.
    if (spawnOptions.env?.SVC_DATA_DIR)
      reapDataDir(spawnOptions.env.SVC_DATA_DIR, { remove: false });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    // Only a guard against a hang (RUN_CLI_HANG_MS), never a measure of the CLI's speed.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`svc ${args.join(' ')} timed out\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, options.timeoutMs ?? RUN_CLI_HANG_MS);
    child.stdin!.end(options.input ?? '');
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({
        code: code ?? -1,
        stdout,
        stderr,
        json() {
          try {
            return JSON.parse(stdout);
          } catch {
            throw new Error(
              `stdout of svc ${args.join(' ')} is not JSON:\n${stdout}\nstderr: ${stderr}`,
            );
          }
        },
      });
    });
  });
}

export interface TestDaemon {
  dataDir: string;
  url: string;
  baseUrl: string;
  pid: number;
  env: NodeJS.ProcessEnv;
  /** Runs the CLI against this daemon. */
  cli(
    args: string[],
    options?: { env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number },
  ): Promise<CliResult>;
  /** The operator key and default workspace, for direct HTTP calls. */
  operator(): Promise<{ key: string; workspaceId: string }>;
  /**
   * Creates a key with these scopes (in the default workspace unless given), over the control
   * channel as `svc keys create` does (a CLI process costs a second of CPU; the command itself
   * is tested in cli-operator.test.ts).
   */
  createKey(
    scopes: string,
    options?: { workspace?: string; expiresIn?: string; name?: string },
  ): Promise<{ id: string; key: string; workspace_id: string }>;
  /**
   * Moves the sandbox clock forward and returns once due timers have fired: a duration (`1s`,
   * `25h`, PT1H) or a number of ms, over the control channel as `svc clock advance` does (the
   * command itself is tested in cli-operator.test.ts and the files that call it by name). Like
   * the CLI, this and the other control calls reach the daemon running on the data dir now.
   */
  advance(duration: string | number): Promise<void>;
  /** Creates a workspace over the control channel (fast: no CLI process); returns its id. */
  createWorkspace(name: string, tier?: string): Promise<string>;
  /** A JSON request: body serialised with its content type, key and tenant as given. */
  callJson(
    method: string,
    path: string,
    body?: unknown,
    auth?: { key?: string; tenant?: string },
  ): Promise<{ status: number; headers: Headers; body: any; text: string }>;
  /** fetch against the daemon with an optional bearer key and tenant. */
  request(
    path: string,
    init?: RequestInit & { key?: string; tenant?: string },
  ): Promise<{ status: number; headers: Headers; body: any; text: string }>;
  stop(): Promise<void>;
}

export async function startDaemon(
  options: { env?: NodeJS.ProcessEnv; args?: string[] } = {},
): Promise<TestDaemon> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-e2e-'));
  reapDataDir(dataDir, { remove: true });
  const env: NodeJS.ProcessEnv = { SVC_DATA_DIR: dataDir, ...options.env };
  const { url, pid } = await launch(dataDir, env, options.args ?? []);
  let operator: { key: string; workspaceId: string } | undefined;
  // The control channel of whatever daemon runs on the data dir now: tests restart daemons,
  // which then listen elsewhere (the CLI finds them the same way, through daemon.json).
  const here = () => ({ url: runtimeOf(dataDir)?.url ?? url, dataDir });
  const daemon: TestDaemon = {
    dataDir,
    url,
    baseUrl: `${url}/v1`,
    pid,
    env,
    cli: (args, cliOptions = {}) =>
      runCli(args, { ...cliOptions, env: { ...env, ...cliOptions.env } }),
    async operator() {
      if (!operator) {
        const credential = await control<{ key: string; default_workspace_id: string }>(
          here(),
          'auth.operatorCredential',
        );
        operator = { key: credential.key, workspaceId: credential.default_workspace_id };
      }
      return operator;
    },
    async createKey(scopes, keyOptions = {}) {
      const { scopes: parsed, unknown } = parseScopes(scopes);
      if (unknown.length > 0) throw new Error(`createKey: unknown scopes ${unknown.join(', ')}`);
      const expiresInMs =
        keyOptions.expiresIn === undefined ? undefined : parseDuration(keyOptions.expiresIn);
      if (expiresInMs === null)
        throw new Error(`createKey: not a duration: ${keyOptions.expiresIn}`);
      return control(here(), 'keys.create', {
        name: keyOptions.name ?? 'test',
        scopes: parsed,
        ...(keyOptions.workspace ? { workspace_id: keyOptions.workspace } : {}),
        ...(expiresInMs ? { expires_in_ms: expiresInMs } : {}),
      });
    },
    async advance(duration) {
      const ms = typeof duration === 'number' ? duration : parseDuration(duration);
      if (ms === null) throw new Error(`advance: not a duration: ${duration}`);
      await control(here(), 'clock.advance', { ms });
    },
    async createWorkspace(name, tier = 'enterprise') {
      const created = await control<{ id: string }>(here(), 'workspaces.create', { name, tier });
      return created.id;
    },
    callJson(method, path, body, auth = {}) {
      return daemon.request(path, {
        method,
        ...auth,
        ...(body === undefined
          ? {}
          : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      });
    },
    async request(path, init = {}) {
      const { key, tenant, headers, ...rest } = init;
      const allHeaders: Record<string, string> = { ...(headers as Record<string, string>) };
      if (key) allHeaders.authorization = `Bearer ${key}`;
      if (tenant) allHeaders['x-tenant-id'] = tenant;
      const response = await fetch(`${url}${path}`, { ...rest, headers: allHeaders });
      const text = await response.text();
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = undefined;
      }
      return { status: response.status, headers: response.headers, body, text };
    },
    async stop() {
      await stopRunning(dataDir);
      rmSync(dataDir, { recursive: true, force: true });
      forgetDataDir(dataDir);
    },
  };
  return daemon;
}

/**
 * Starts the daemon of a fresh data dir as `svc daemon start --port 0` does. Without more
 * arguments, by the CLI's own launchDaemon in this process: the same spawn, environment and
 * readiness wait, without a CLI process (half a CPU-second each, a few hundred times a gate;
 * `svc daemon start` itself is tested in daemon-lifecycle.test.ts and the files that run it).
 * With arguments (--env, --store, --fixtures ...), through the CLI, which reads them.
 */
async function launch(
  dataDir: string,
  env: NodeJS.ProcessEnv,
  args: readonly string[],
): Promise<{ url: string; pid: number }> {
  if (args.length === 0) {
    try {
      return await launchDaemon(
        dataDir,
        { port: 0 },
        svcEnv({ NO_COLOR: '1', CI: 'true', ...env }),
      );
    } catch (error) {
      throw new Error(`daemon did not start: ${(error as Error).message}`);
    }
  }
  const started = await runCli(['daemon', 'start', '--port', '0', '--json', ...args], { env });
  if (started.code !== 0) {
    throw new Error(
      `daemon did not start (exit ${started.code}): ${started.stderr}${started.stdout}`,
    );
  }
  return started.json<{ url: string; pid: number }>();
}

/**
 * Stops whatever daemon runs on the data dir now (daemon.json; tests restart daemons), as
 * `svc daemon stop` does: a shutdown over the control channel, SIGTERM if that fails, then waits
 * for the process to end; SIGKILL after 30 s, so that no test leaves a daemon behind. Without a
 * CLI process: `svc daemon stop` itself is tested in daemon-lifecycle.test.ts.
 */
async function stopRunning(dataDir: string): Promise<void> {
  const runtime = runtimeOf(dataDir);
  let token: string;
  try {
    token = readFileSync(dataDirFiles(dataDir).controlToken, 'utf8').trim();
  } catch {
    return; // Not running (never started).
  }
  if (!runtime) return; // Not running (never started, or stopped by the test).
  // A stale daemon.json (a daemon the test killed) may name a pid in use by another program.
  if (!isSvcDaemon(runtime.pid)) return;
  try {
    await control({ url: runtime.url, token }, 'daemon.shutdown');
  } catch {
    signal(runtime.pid, 'SIGTERM');
  }
  const deadline = Date.now() + 30_000;
  while (isAlive(runtime.pid)) {
    if (Date.now() > deadline) {
      signal(runtime.pid, 'SIGKILL');
      return;
    }
    await new Promise((resolvePromise) => setTimeout(resolvePromise, 20));
  }
}

/** Where the daemon of the data dir said it runs (daemon.json), if it said so. */
function runtimeOf(dataDir: string): { url: string; pid: number } | undefined {
  try {
    return JSON.parse(readFileSync(dataDirFiles(dataDir).runtime, 'utf8'));
  } catch {
    return undefined;
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Gone meanwhile.
  }
}

/** Asserts a CLI run's exit code; on a mismatch the message shows both outputs. */
export function assertExit(
  t: { is(actual: unknown, expected: unknown, message?: string): void },
  result: CliResult,
  code: number,
): void {
  t.is(
    result.code,
    code,
    `exit ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`,
  );
}
