// End-to-end helper: a real daemon (spawned through the real CLI, on port 0, in a fresh temp
// data dir) and a way to run the real CLI against it.
import { spawn, type SpawnOptions } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { control } from './api.js';
import { svcEnv } from './env.js';

export const ROOT = resolve(import.meta.dirname, '..', '..');
export const SVC_BIN = join(ROOT, 'bin', 'svc.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (when the command ran with --json). */
  json<T = any>(): T;
}

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
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`svc ${args.join(' ')} timed out\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, options.timeoutMs ?? 60_000);
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
  cli(args: string[], options?: { env?: NodeJS.ProcessEnv; input?: string }): Promise<CliResult>;
  /** The operator key and default workspace, for direct HTTP calls. */
  operator(): Promise<{ key: string; workspaceId: string }>;
  /** Creates a key with these scopes (in the default workspace unless given). */
  createKey(
    scopes: string,
    options?: { workspace?: string; expiresIn?: string; name?: string },
  ): Promise<{ id: string; key: string; workspace_id: string }>;
  /**
   * Moves the sandbox clock forward and returns once due timers have fired: a duration string
   * (`1s`, `25h`) goes through the real CLI (`svc clock advance`), a number of ms through the
   * control channel (fast, for the 1 ms steps that order created_at).
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
  const env: NodeJS.ProcessEnv = { SVC_DATA_DIR: dataDir, ...options.env };
  const started = await runCli(
    ['daemon', 'start', '--port', '0', '--json', ...(options.args ?? [])],
    { env },
  );
  if (started.code !== 0) {
    throw new Error(
      `daemon did not start (exit ${started.code}): ${started.stderr}${started.stdout}`,
    );
  }
  const { url, pid } = started.json<{ url: string; pid: number }>();
  let operator: { key: string; workspaceId: string } | undefined;
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
        const me = await daemon.cli(['whoami', '--json']);
        const credential = await control<{ key: string }>(daemon, 'auth.operatorCredential');
        operator = { key: credential.key, workspaceId: me.json().workspace_id };
      }
      return operator;
    },
    async createKey(scopes, keyOptions = {}) {
      const args = [
        'keys',
        'create',
        '--name',
        keyOptions.name ?? 'test',
        '--scopes',
        scopes,
        '--json',
      ];
      if (keyOptions.workspace) args.push('--workspace', keyOptions.workspace);
      if (keyOptions.expiresIn) args.push('--expires-in', keyOptions.expiresIn);
      const result = await daemon.cli(args);
      if (result.code !== 0) throw new Error(`keys create failed: ${result.stderr}`);
      return result.json();
    },
    async advance(duration) {
      if (typeof duration === 'number') {
        await control(daemon, 'clock.advance', { ms: duration });
        return;
      }
      const result = await daemon.cli(['clock', 'advance', duration, '--json']);
      if (result.code !== 0) throw new Error(`clock advance ${duration}: ${result.stderr}`);
    },
    async createWorkspace(name, tier = 'enterprise') {
      const created = await control<{ id: string }>(daemon, 'workspaces.create', { name, tier });
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
      await runCli(['daemon', 'stop'], { env });
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return daemon;
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
