// The bench's shared harness: settings, the daemon and the baseline server as processes, the
// control channel and REST helpers, CPU time, statistics and tables. Each case lives in
// bench/cases/ (one file, a default export BenchCase); bench/run.ts runs them all.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { Worker } from 'node:worker_threads';
import type { ReceiverMessage, ReceiverRequest } from './webhook-receiver.js';

export const ROOT = resolve(import.meta.dirname, '..');
export const SVC_BIN = join(ROOT, 'bin', 'svc.js');
export const BASELINE_SERVER = join(import.meta.dirname, 'baseline-server.ts');
export const WEBHOOK_RECEIVER = join(import.meta.dirname, 'webhook-receiver.ts');
export const ENTERPRISE_RATE_MULTIPLIER = '1000000';

export function numberSetting(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number.`);
  return value;
}

export const settings = {
  seconds: numberSetting('BENCH_SECONDS', 8),
  warmupSeconds: numberSetting('BENCH_WARMUP_SECONDS', 2),
  /**
   * Cases that load the workflow engine warm up longer: the daemon's path through it reaches
   * its steady state after about 5 s of load (measured with 2 s: the first round 10-15% under
   * the second; with 6 s: equal). A daemon serves for hours; the steady state is what counts.
   */
  engineWarmupSeconds: numberSetting('BENCH_WARMUP_SECONDS', 6),
  connections: Math.round(numberSetting('BENCH_CONNECTIONS', 10)),
  pipelining: Math.round(numberSetting('BENCH_PIPELINING', 1)),
  rounds: Math.round(numberSetting('BENCH_ROUNDS', 2)),
  startupRuns: Math.round(numberSetting('BENCH_STARTUP_RUNS', 15)),
  bundleRuns: Math.round(numberSetting('BENCH_BUNDLE_RUNS', 5)),
  deliveryEvents: Math.round(numberSetting('BENCH_DELIVERY_EVENTS', 10_000)),
  deliveryConcurrency: Math.round(numberSetting('BENCH_DELIVERY_CONCURRENCY', 32)),
  /** The delivery case's rounds published at the target rate, and each round's length. */
  deliveryPacedRounds: Math.round(numberSetting('BENCH_DELIVERY_PACED_ROUNDS', 3)),
  deliveryPacedSeconds: numberSetting('BENCH_DELIVERY_PACED_SECONDS', 5),
};

/** What a scenario may use: the running daemon and a key in its default workspace. */
export interface DaemonContext {
  url: string;
  dataDir: string;
  env: NodeJS.ProcessEnv;
  /** An admin-scoped sk_test_ key in the default workspace. */
  key: string;
  /** The default (enterprise) workspace. */
  workspaceId: string;
  /** The active L3 agent of the agents scenarios ('' until benchAgent() made it). */
  agentId: string;
  /** The contents of <data dir>/control-token. */
  controlToken(): string;
  /** Calls a control-channel (tRPC) procedure as the operator. */
  control(procedure: string, input?: unknown, kind?: 'query' | 'mutation'): Promise<unknown>;
}

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export const apiHeaders = (ctx: DaemonContext): Record<string, string> => ({
  authorization: `Bearer ${ctx.key}`,
  'x-tenant-id': ctx.workspaceId,
});

/** A REST call with the bench key that must succeed; answers the `data` of the answer. */
export async function api<T>(ctx: DaemonContext, method: Method, path: string, body?: unknown) {
  const headers: Record<string, string> = apiHeaders(ctx);
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${ctx.url}${path}`, {
    method,
    headers,
    body: body === undefined ? null : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 500)}`);
  return (JSON.parse(text) as { data: T }).data;
}

/** Creates and deploys the agents scenarios' agent once (L3, so executions complete). */
export async function benchAgent(ctx: DaemonContext): Promise<string> {
  if (ctx.agentId) return ctx.agentId;
  const agent = await api<{ id: string }>(ctx, 'POST', '/v1/agents', {
    name: 'Bench',
    ontology: 'retail-v1',
    type: 'customer-service',
    autonomy_level: 'L3',
  });
  const deployed = await api<{ status: string }>(ctx, 'POST', '/v1/agents/deploy', {
    agent_id: agent.id,
  });
  if (deployed.status !== 'active') {
    throw new Error(`POST /v1/agents/deploy left agent ${agent.id} ${deployed.status}`);
  }
  ctx.agentId = agent.id;
  return agent.id;
}

// ---------------------------------------------------------------------------------------------
// Processes

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function runCli(
  args: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = 60_000,
): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [SVC_BIN, ...args], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: '1', CI: 'true', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`svc ${args.join(' ')} timed out\n${stdout}${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code: code ?? -1, stdout, stderr });
    });
  });
}

export async function cliJson<T>(args: string[], env: NodeJS.ProcessEnv): Promise<T> {
  const result = await runCli([...args, '--json'], env);
  if (result.code !== 0) {
    throw new Error(`svc ${args.join(' ')} failed (exit ${result.code}):\n${result.stderr}`);
  }
  try {
    return JSON.parse(result.stdout) as T;
  } catch {
    throw new Error(`svc ${args.join(' ')} --json did not print JSON:\n${result.stdout}`);
  }
}

export interface Baseline {
  url: string;
  child: ChildProcess;
}

/** The bare node:http baseline, or with `--fastify` its GET /me through bare Fastify. */
export function startBaseline(args: string[] = []): Promise<Baseline> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', BASELINE_SERVER, ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('the baseline server did not start within 20 s'));
    }, 20_000);
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`the baseline server exited (${code})`)));
    createInterface({ input: child.stdout! }).once('line', (line) => {
      clearTimeout(timer);
      try {
        resolvePromise({ url: (JSON.parse(line) as { url: string }).url, child });
      } catch {
        reject(new Error(`the baseline server printed ${line}`));
      }
    });
  });
}

export interface Daemon extends DaemonContext {
  pid: number;
}

/** `extraEnv`: more settings of the daemon, e.g. SVC_STORE_URL (bench/cases/stores.ts). */
export async function startSvcDaemon(extraEnv: NodeJS.ProcessEnv = {}): Promise<Daemon> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const env: NodeJS.ProcessEnv = {
    SVC_DATA_DIR: dataDir,
    SVC_ENTERPRISE_RATE_MULTIPLIER: ENTERPRISE_RATE_MULTIPLIER,
    ...extraEnv,
  };
  // Measure with the default log level, whatever the caller's shell has.
  delete process.env.SVC_LOG_LEVEL;
  let started: { url: string; pid: number };
  try {
    started = await cliJson(['daemon', 'start', '--port', '0'], env);
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  let controlToken: string | undefined;
  const daemon: Daemon = {
    url: started.url,
    pid: started.pid,
    dataDir,
    env,
    key: '',
    workspaceId: '',
    agentId: '',
    controlToken() {
      controlToken ??= readFileSync(join(dataDir, 'control-token'), 'utf8').trim();
      return controlToken;
    },
    async control(procedure, input, kind = 'query') {
      const token = daemon.controlToken();
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const response =
        kind === 'mutation'
          ? await fetch(`${started.url}/trpc/${procedure}`, {
              method: 'POST',
              headers,
              body: JSON.stringify(input ?? {}),
            })
          : await fetch(
              `${started.url}/trpc/${procedure}` +
                (input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(input))}`),
              { headers },
            );
      const text = await response.text();
      if (!response.ok) throw new Error(`control ${procedure}: ${response.status} ${text}`);
      return (JSON.parse(text) as { result: { data: unknown } }).result.data;
    },
  };
  return daemon;
}

/** A daemon started with the real CLI, with an admin key for the bench and its workspace. */
export async function startBenchDaemon(extraEnv: NodeJS.ProcessEnv = {}): Promise<Daemon> {
  const daemon = await startSvcDaemon(extraEnv);
  try {
    const created = await cliJson<{ key: string }>(
      ['keys', 'create', '--name', 'bench', '--scopes', 'admin'],
      daemon.env,
    );
    const whoami = await cliJson<{ workspace_id: string }>(['whoami'], daemon.env);
    daemon.key = created.key;
    daemon.workspaceId = whoami.workspace_id;
  } catch (error) {
    await stopSvcDaemon(daemon);
    rmSync(daemon.dataDir, { recursive: true, force: true });
    throw error;
  }
  return daemon;
}

export async function stopSvcDaemon(daemon: Daemon): Promise<void> {
  const stopped = await runCli(['daemon', 'stop'], daemon.env).catch(
    (error: unknown) => ({ code: -1, stdout: '', stderr: String(error) }) as CliResult,
  );
  if (stopped.code !== 0) {
    console.error(`svc daemon stop failed (${stopped.stderr.trim()}); killing pid ${daemon.pid}`);
    try {
      process.kill(daemon.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

export function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolvePromise) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolvePromise();
      return;
    }
    child.removeAllListeners('exit');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolvePromise();
    });
    child.kill('SIGTERM');
  });
}

export function stopBaseline(baseline: Baseline): Promise<void> {
  return stopChild(baseline.child);
}

export type ReceiverAnswer<T extends ReceiverRequest['type']> = Extract<
  ReceiverMessage,
  { type: T }
>;

export interface ReceiverProcess {
  /** Where the webhook points. */
  url: string;
  child: ChildProcess;
  /** Sends a request to the receiver and resolves with its answer. */
  ask<T extends ReceiverRequest['type']>(type: T): Promise<ReceiverAnswer<T>>;
}

/** The webhook receiver (bench/webhook-receiver.ts) in a child process. */
export function startReceiver(): Promise<ReceiverProcess> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', WEBHOOK_RECEIVER], {
      cwd: ROOT,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    // Answers come in the order of the requests.
    const waiting: {
      type: ReceiverRequest['type'];
      resolve(message: ReceiverMessage): void;
      reject(error: Error): void;
    }[] = [];
    const ask = <T extends ReceiverRequest['type']>(type: T) =>
      new Promise<ReceiverAnswer<T>>((resolveAnswer, rejectAnswer) => {
        waiting.push({
          type,
          resolve: (message) => resolveAnswer(message as ReceiverAnswer<T>),
          reject: rejectAnswer,
        });
        child.send({ type } satisfies ReceiverRequest);
      });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('the webhook receiver did not start within 20 s'));
    }, 20_000);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      const error = new Error(`the webhook receiver exited (${code ?? signal})`);
      reject(error);
      for (const waiter of waiting.splice(0)) waiter.reject(error);
    });
    child.on('message', (message: ReceiverMessage) => {
      if (message.type === 'ready') {
        clearTimeout(timer);
        resolvePromise({ url: message.url, child, ask });
        return;
      }
      const waiter = waiting.shift();
      if (waiter?.type === message.type) waiter.resolve(message);
      else waiter?.reject(new Error(`the webhook receiver answered ${message.type}`));
    });
  });
}

export interface Target {
  label: 'baseline' | 'daemon';
  url: string;
  /** The server process, whose CPU time is read around each run. */
  pid: number;
}

export const CLOCK_TICKS = (() => {
  const result = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  const ticks = Number(result.stdout?.trim());
  return Number.isInteger(ticks) && ticks > 0 ? ticks : 100;
})();

/**
 * CPU seconds a process has used so far (Linux /proc), or undefined. Unlike req/s, CPU time per
 * request hardly moves when other work on the machine takes the cores away from the servers.
 */
export function cpuSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of stat (utime, stime) are the 12th and 13th after "pid (comm)".
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

/** The targets in the order round `round` loads them: who goes first alternates each round. */
export function roundOrder<T>(targets: readonly T[], round: number): readonly T[] {
  return round % 2 === 0 ? targets : [...targets].reverse();
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Wall-clock ms with sub-ms resolution; the receiver uses the same expression. */
export const wallNow = () => performance.timeOrigin + performance.now();

/** What one load round of a case measured (per target). */
export interface RunFigures {
  reqPerSec: number;
  p50: number;
  p99: number;
  requests: number;
  /** Server CPU time (user + system, all threads) per request, in µs; undefined off Linux. */
  cpuUsPerRequest: number | undefined;
}

/** Rounds of one target combined: means, but the worst round's p99 (a tail is not averaged away). */
export function combineRounds(runs: RunFigures[]): RunFigures {
  const mean = (pick: (run: RunFigures) => number) =>
    runs.reduce((sum, run) => sum + pick(run), 0) / runs.length;
  return {
    reqPerSec: mean((run) => run.reqPerSec),
    p50: mean((run) => run.p50),
    p99: Math.max(...runs.map((run) => run.p99)),
    requests: runs.reduce((sum, run) => sum + run.requests, 0),
    cpuUsPerRequest: runs.some((run) => run.cpuUsPerRequest === undefined)
      ? undefined
      : mean((run) => run.cpuUsPerRequest!),
  };
}

/** The daemon against the baseline: each one's rounds combined, the req/s and CPU ratios. */
export function compareRounds(
  daemon: RunFigures[],
  baseline: RunFigures[],
): { daemon: RunFigures; baseline: RunFigures; ratio: number; cpuRatio: number | undefined } {
  const ours = combineRounds(daemon);
  const theirs = combineRounds(baseline);
  return {
    daemon: ours,
    baseline: theirs,
    ratio: ours.reqPerSec / theirs.reqPerSec,
    cpuRatio:
      ours.cpuUsPerRequest && theirs.cpuUsPerRequest
        ? theirs.cpuUsPerRequest / ours.cpuUsPerRequest
        : undefined,
  };
}

/** Milliseconds one GET /healthz takes, its body read. */
export async function healthzMs(url: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${url}/healthz`);
  await response.arrayBuffer();
  return performance.now() - started;
}

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: number[], p: number): number {
  return sorted[
    Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))
  ]!;
}

export function table(header: string[], rows: string[][]): string {
  const widths = header.map((cell, column) =>
    Math.max(cell.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!),
      )
      .join('  ');
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)]
    .map((text) => `  ${text}`)
    .join('\n');
}

/** What a case reports: figures printed in order, and how many targets it missed. */
export interface CaseReport {
  print(): void;
  missed: number;
}

/** The running servers, for the cases that load them. */
export interface Servers {
  daemon: Daemon;
  baseline: Baseline;
  daemonTarget: Target;
  baselineTarget: Target;
}

export interface BenchCase {
  /** Cases run in this order (ties by file name). */
  order: number;
  /** Also printed in the bench's introduction. */
  describe(): string;
  /**
   * `servers`: runs while the daemon and the baseline are up (they are stopped after the last
   * such case, before any figure is printed); `standalone`: runs after that, on its own.
   */
  needs: 'servers' | 'standalone';
  run(servers: Servers | undefined): Promise<CaseReport>;
}

/**
 * Posts hook bodies all at once from a worker thread (so that probes time the daemon, not the
 * bench's own thread); rejects unless every answer is 202, answers the runs' execution ids.
 */
export function postHooks(url: string, bodies: string[]): Promise<string[]> {
  const source = `
    const { workerData: job, parentPort } = require('node:worker_threads');
    Promise.all(job.bodies.map(async (body) => {
      const response = await fetch(job.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const text = await response.text();
      if (response.status !== 202) throw new Error(job.url + ' answered ' + response.status + ' ' + text.slice(0, 300));
      return JSON.parse(text).data.execution_id;
    })).then((ids) => { parentPort.postMessage(ids); process.exit(0); });
  `;
  const worker = new Worker(source, { eval: true, workerData: { url, bodies } });
  let ids: string[] = [];
  worker.once('message', (message: string[]) => (ids = message));
  return new Promise((resolve, reject) => {
    worker.once('error', reject);
    worker.once('exit', (code) =>
      code === 0 ? resolve(ids) : reject(new Error(`the hook worker exited with ${code}`)),
    );
  });
}
