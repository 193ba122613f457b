// The workflow case of `npm run bench`: durable five-step runs answered inline.
//
// A real daemon (started with the real CLI in a temp data dir, default log level) runs a workflow
// of five steps, agent_action -> condition -> agent_action -> webhook -> agent_action, on one
// active L3 agent (the simulated brain answers, so every agent step completes), the webhook step
// calling a local receiver in a child process (bench/webhook-receiver.ts, answering 200 at once).
// autocannon (in this process) sends POST /v1/workflows/{id}/execute {"input": {...},
// "wait_for_completion": true} over BENCH_WORKFLOW_CONNECTIONS (50) connections: every answer
// must be 200 with a completed run, so runs/s is completed durable runs per second, each stored
// step by step (an execution row, one row per step attempt, its events) before the answer.
// The same load goes to bench/workflow-baseline.ts, a bare node:http server answering an
// execution of the same shape and size without doing any of it, alternating the two per round
// as the HTTP scenarios of bench/run.ts do.
//
// Figures: runs/s (daemon, mean of the rounds; target >= 1000), p50 and p99 of a run (the
// daemon's answer latency, worst round's p99), the baseline's req/s and ratio = daemon /
// baseline, CPU µs per run of each server (Linux /proc) and their ratio. After the load the
// receiver's count is checked against the completed runs: one webhook call per run, no more, no
// fewer (the bench fails if not).
//
// Use: `await benchWorkflows()` from the bench runner (it starts and stops everything it needs,
// prints its progress and table, and answers the figures; it throws when it could not run), or
// alone: `npm run build && node --import tsx bench/workflows.ts`.
// Settings (environment): BENCH_SECONDS (8), BENCH_WARMUP_SECONDS (2), BENCH_ROUNDS (2),
// BENCH_WORKFLOW_CONNECTIONS (50).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import type { ReceiverMessage, ReceiverRequest } from './webhook-receiver.js';

const ROOT = resolve(import.meta.dirname, '..');
const SVC_BIN = join(ROOT, 'bin', 'svc.js');
const BASELINE = join(import.meta.dirname, 'workflow-baseline.ts');
const RECEIVER = join(import.meta.dirname, 'webhook-receiver.ts');
export const WORKFLOW_TARGET_RUNS_PER_SECOND = 1000;

export interface WorkflowBenchSettings {
  seconds: number;
  warmupSeconds: number;
  rounds: number;
  connections: number;
}

function numberSetting(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number.`);
  return value;
}

export function workflowBenchSettings(): WorkflowBenchSettings {
  return {
    seconds: numberSetting('BENCH_SECONDS', 8),
    warmupSeconds: numberSetting('BENCH_WARMUP_SECONDS', 2),
    rounds: Math.round(numberSetting('BENCH_ROUNDS', 2)),
    connections: Math.round(numberSetting('BENCH_WORKFLOW_CONNECTIONS', 50)),
  };
}

interface Figures {
  perSecond: number;
  p50: number;
  p99: number;
  requests: number;
  cpuUsPerRequest: number | undefined;
}

export interface WorkflowBenchResult {
  settings: WorkflowBenchSettings;
  daemon: Figures;
  baseline: Figures;
  /** daemon runs/s / baseline req/s */
  ratio: number;
  /** baseline CPU µs per request / daemon CPU µs per run */
  cpuRatio: number | undefined;
  bytes: { daemon: number; baseline: number };
  /** Runs the daemon completed (probe, warm-ups, loads), and webhook calls the receiver got: equal, or the bench fails. */
  runs: number;
  webhookCalls: number;
  pass: boolean;
}

// ---------------------------------------------------------------------------------------------
// Processes

function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; out: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [SVC_BIN, ...args], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: '1', CI: 'true', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolvePromise({ code, out })
        : reject(new Error(`svc ${args.join(' ')} exited ${code}: ${err}${out}`)),
    );
  });
}

async function cliJson<T>(args: string[], env: NodeJS.ProcessEnv): Promise<T> {
  return JSON.parse((await runCli([...args, '--json'], env)).out) as T;
}

function startServer(file: string): Promise<{ url: string; child: ChildProcess }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', file], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${file} did not start within 20 s`));
    }, 20_000);
    child.on('error', reject);
    createInterface({ input: child.stdout! }).once('line', (line) => {
      clearTimeout(timer);
      resolvePromise({ url: (JSON.parse(line) as { url: string }).url, child });
    });
  });
}

interface ReceiverProcess {
  url: string;
  child: ChildProcess;
  status(): Promise<Extract<ReceiverMessage, { type: 'status' }>>;
}

function startReceiver(): Promise<ReceiverProcess> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', RECEIVER], {
      cwd: ROOT,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const waiting: ((message: ReceiverMessage) => void)[] = [];
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('the webhook receiver did not start within 20 s'));
    }, 20_000);
    child.on('error', reject);
    child.on('message', (message: ReceiverMessage) => {
      if (message.type === 'ready') {
        clearTimeout(timer);
        resolvePromise({
          url: message.url,
          child,
          status: () =>
            new Promise((answer) => {
              waiting.push((reply) =>
                answer(reply as Extract<ReceiverMessage, { type: 'status' }>),
              );
              child.send({ type: 'status' } satisfies ReceiverRequest);
            }),
        });
        return;
      }
      waiting.shift()?.(message);
    });
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolvePromise) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolvePromise();
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolvePromise();
    });
    child.kill('SIGTERM');
  });
}

const CLOCK_TICKS = (() => {
  const ticks = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim());
  return Number.isInteger(ticks) && ticks > 0 ? ticks : 100;
})();

/** CPU seconds a process has used so far (Linux /proc), or undefined. */
function cpuSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// The workflow

interface Target {
  label: 'baseline' | 'daemon';
  url: string;
  pid: number;
  headers: Record<string, string>;
}

const INPUT = { text: 'Where is my order 1234?', amount: 120 };
const BODY = JSON.stringify({ input: INPUT, wait_for_completion: true });

async function call<T>(target: Target, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${target.url}${path}`, {
    method,
    headers: {
      ...target.headers,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? null : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 500)}`);
  return (JSON.parse(text) as { data: T }).data;
}

/** An active L3 agent and the five-step workflow; answers the execute path. */
async function setUpWorkflow(daemon: Target, receiverUrl: string): Promise<string> {
  const agent = await call<{ id: string }>(daemon, 'POST', '/v1/agents', {
    name: 'Bench workflow agent',
    ontology: 'retail-v1',
    type: 'customer-service',
    autonomy_level: 'L3',
  });
  await call(daemon, 'POST', '/v1/agents/deploy', { agent_id: agent.id });
  const agentStep = (id: string, name: string, next: string | null, action: string) => ({
    id,
    name,
    type: 'agent_action',
    agent_id: agent.id,
    config: { action, input_mapping: { text: '{{trigger.payload.text}}' } },
    ...(next ? { next_step_id: next } : {}),
  });
  const workflow = await call<{ id: string }>(daemon, 'POST', '/v1/workflows', {
    name: 'Bench: five durable steps',
    status: 'active',
    steps: [
      agentStep('classify', 'Classify the request', 'check', 'classify'),
      {
        id: 'check',
        name: 'Confident enough?',
        type: 'condition',
        config: {
          condition: 'classify.result.confidence >= 0 && trigger.payload.amount > 100',
          if_true: 'draft',
          if_false: 'draft',
        },
      },
      agentStep('draft', 'Draft the answer', 'notify', 'draft_reply'),
      {
        id: 'notify',
        name: 'Notify the CRM',
        type: 'webhook',
        config: {
          url: receiverUrl,
          method: 'POST',
          body: { run: '{{workflow.execution_id}}', reply: '{{draft.result.output}}' },
        },
        next_step_id: 'close',
      },
      agentStep('close', 'Close the ticket', null, 'close_ticket'),
    ],
  });
  return `/v1/workflows/${workflow.id}/execute`;
}

/** One run before loading: a wrong answer shows up as an error, not as a figure. */
async function probe(target: Target, path: string): Promise<number> {
  const response = await fetch(`${target.url}${path}`, {
    method: 'POST',
    headers: { ...target.headers, 'content-type': 'application/json' },
    body: BODY,
  });
  const text = await response.text();
  const status = (JSON.parse(text) as { data?: { status?: string } }).data?.status;
  if (response.status !== 200 || status !== 'completed') {
    throw new Error(
      `the ${target.label} answered ${response.status} to POST ${path}: ${text.slice(0, 800)}`,
    );
  }
  return Buffer.byteLength(text);
}

async function load(target: Target, path: string, seconds: number, connections: number) {
  const cpuBefore = cpuSeconds(target.pid);
  const result = await autocannon({
    url: `${target.url}${path}`,
    method: 'POST',
    headers: { ...target.headers, 'content-type': 'application/json' },
    body: BODY,
    connections,
    duration: seconds,
  });
  const cpuAfter = cpuSeconds(target.pid);
  const other = Object.entries(result.statusCodeStats ?? {})
    .filter(([code, stats]) => code !== '200' && (stats.count ?? 0) > 0)
    .map(([code, stats]) => `${code} x${stats.count}`);
  if (result.errors > 0 || result.timeouts > 0 || other.length || result['2xx'] === 0) {
    throw new Error(
      `the ${target.label} did not answer 200 to every run (errors ${result.errors}, timeouts ` +
        `${result.timeouts}, other statuses ${other.join(', ') || 'none'}); the figures would mean nothing.`,
    );
  }
  return {
    perSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    cpuUsPerRequest:
      cpuBefore === undefined || cpuAfter === undefined
        ? undefined
        : ((cpuAfter - cpuBefore) * 1e6) / result.requests.total,
  } satisfies Figures;
}

function combine(runs: Figures[]): Figures {
  const mean = (pick: (run: Figures) => number) =>
    runs.reduce((sum, run) => sum + pick(run), 0) / runs.length;
  return {
    perSecond: mean((run) => run.perSecond),
    p50: mean((run) => run.p50),
    p99: Math.max(...runs.map((run) => run.p99)),
    requests: runs.reduce((sum, run) => sum + run.requests, 0),
    cpuUsPerRequest: runs.some((run) => run.cpuUsPerRequest === undefined)
      ? undefined
      : mean((run) => run.cpuUsPerRequest!),
  };
}

/**
 * Waits until the daemon has no run left going and the receiver's count stopped moving; answers
 * the runs the daemon counted (all must have completed) and the webhook calls received.
 */
async function settle(daemon: Target, executePath: string, receiver: ReceiverProcess) {
  const workflowPath = executePath.replace(/\/execute$/, '');
  const deadline = Date.now() + 30_000;
  for (;;) {
    const running = await fetch(`${daemon.url}${workflowPath}/executions?status=running&limit=1`, {
      headers: daemon.headers,
    });
    const busy = ((await running.json()) as { data: unknown[] }).data.length > 0;
    const before = (await receiver.status()).received;
    await new Promise((resolve) => setTimeout(resolve, 300));
    const calls = (await receiver.status()).received;
    if ((!busy && calls === before) || Date.now() > deadline) {
      const workflow = await call<{ stats: { total_executions: number; success_rate: number } }>(
        daemon,
        'GET',
        workflowPath,
      );
      if (workflow.stats.success_rate !== 1) {
        throw new Error(
          `not every run completed (success rate ${workflow.stats.success_rate}); the figures would mean nothing`,
        );
      }
      return { runs: workflow.stats.total_executions, calls };
    }
  }
}

// ---------------------------------------------------------------------------------------------

/** Runs the workflow case: starts what it needs, loads both servers, prints and answers. */
export async function benchWorkflows(
  settings: WorkflowBenchSettings = workflowBenchSettings(),
): Promise<WorkflowBenchResult> {
  console.log(
    `\nWorkflows: durable five-step runs (agent_action -> condition -> agent_action -> webhook ` +
      `-> agent_action), wait_for_completion, ${settings.connections} connections, ` +
      `${settings.warmupSeconds} s warm-up + ${settings.seconds} s x ${settings.rounds} round(s)`,
  );
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-wf-'));
  const env: NodeJS.ProcessEnv = {
    SVC_DATA_DIR: dataDir,
    SVC_ENTERPRISE_RATE_MULTIPLIER: '1000000',
  };
  const children: ChildProcess[] = [];
  let daemonStarted = false;
  try {
    const [baseline, receiver] = await Promise.all([startServer(BASELINE), startReceiver()]);
    children.push(baseline.child, receiver.child);
    // Measure with the default log level, whatever the caller's shell has.
    delete process.env.SVC_LOG_LEVEL;
    const started = await cliJson<{ url: string; pid: number }>(
      ['daemon', 'start', '--port', '0'],
      env,
    );
    daemonStarted = true;
    const { key } = await cliJson<{ key: string }>(
      ['keys', 'create', '--name', 'bench', '--scopes', 'admin'],
      env,
    );
    const { workspace_id: workspaceId } = await cliJson<{ workspace_id: string }>(['whoami'], env);
    const daemon: Target = {
      label: 'daemon',
      url: started.url,
      pid: started.pid,
      headers: { authorization: `Bearer ${key}`, 'x-tenant-id': workspaceId },
    };
    const base: Target = {
      label: 'baseline',
      url: baseline.url,
      pid: baseline.child.pid!,
      headers: {},
    };
    const daemonPath = await setUpWorkflow(daemon, receiver.url);
    const pathOf = (target: Target) =>
      target.label === 'daemon' ? daemonPath : '/workflow-execute';
    const bytes = {
      daemon: await probe(daemon, daemonPath),
      baseline: await probe(base, pathOf(base)),
    };

    const measured: Record<Target['label'], Figures[]> = { baseline: [], daemon: [] };
    for (let round = 0; round < settings.rounds; round += 1) {
      for (const target of round % 2 === 0 ? [base, daemon] : [daemon, base]) {
        process.stdout.write(
          `  workflows: ${target.label} (round ${round + 1}/${settings.rounds}) ...`,
        );
        await load(target, pathOf(target), settings.warmupSeconds, settings.connections);
        const figures = await load(target, pathOf(target), settings.seconds, settings.connections);
        measured[target.label].push(figures);
        process.stdout.write(
          ` ${figures.perSecond.toFixed(0)} ${target.label === 'daemon' ? 'runs' : 'req'}/s, ` +
            `p99 ${figures.p99} ms, ${figures.cpuUsPerRequest?.toFixed(0) ?? '-'} CPU µs each\n`,
        );
      }
    }
    // Every run made exactly one webhook call. autocannon counts only the answers it read before
    // the end of each load, so the runs are counted by the daemon (the workflow's stats, once
    // the last runs in flight at the end have finished) and must all have completed.
    const { runs, calls } = await settle(daemon, daemonPath, receiver);
    const daemonFigures = combine(measured.daemon);
    const baselineFigures = combine(measured.baseline);
    const result: WorkflowBenchResult = {
      settings,
      daemon: daemonFigures,
      baseline: baselineFigures,
      ratio: daemonFigures.perSecond / baselineFigures.perSecond,
      cpuRatio:
        daemonFigures.cpuUsPerRequest && baselineFigures.cpuUsPerRequest
          ? baselineFigures.cpuUsPerRequest / daemonFigures.cpuUsPerRequest
          : undefined,
      bytes,
      runs,
      webhookCalls: calls,
      pass: daemonFigures.perSecond >= WORKFLOW_TARGET_RUNS_PER_SECOND,
    };
    if (calls !== runs) {
      throw new Error(`${runs} runs completed but the receiver got ${calls} webhook calls`);
    }
    printWorkflowBench(result);
    return result;
  } finally {
    if (daemonStarted) await runCli(['daemon', 'stop'], env).catch(() => undefined);
    await Promise.all(children.map(stopChild));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function printWorkflowBench(result: WorkflowBenchResult): void {
  const rows: [string, string][] = [
    ['runs/s (completed, durable, answered inline)', result.daemon.perSecond.toFixed(0)],
    ['target runs/s', `>= ${WORKFLOW_TARGET_RUNS_PER_SECOND}`],
    ['p50 ms of a run', result.daemon.p50.toFixed(1)],
    ['p99 ms of a run (worst round)', String(result.daemon.p99)],
    ['baseline req/s (node:http, same answer)', result.baseline.perSecond.toFixed(0)],
    ['baseline p99 ms', String(result.baseline.p99)],
    ['ratio daemon / baseline', result.ratio.toFixed(3)],
    [
      'cpu µs per run / per baseline answer',
      `${result.daemon.cpuUsPerRequest?.toFixed(0) ?? '-'} / ${result.baseline.cpuUsPerRequest?.toFixed(0) ?? '-'}`,
    ],
    ['cpu ratio (baseline / daemon)', result.cpuRatio?.toFixed(3) ?? '-'],
    ['answer bytes daemon / baseline', `${result.bytes.daemon} / ${result.bytes.baseline}`],
    ['runs completed / webhook calls received', `${result.runs} / ${result.webhookCalls}`],
    ['verdict', result.pass ? 'PASS' : 'FAIL'],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  console.log('');
  for (const [label, value] of rows) console.log(`  ${label.padEnd(width)}  ${value}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    await benchWorkflows();
  } catch (error) {
    console.error(
      `\nworkflow bench could not run: ${error instanceof Error ? error.message : error}`,
    );
    process.exitCode = 1;
  }
}
