// What the bench's PostgreSQL cases share (bench/cases/stores.ts, bench/cases/team.ts,
// bench/store-trips.ts): the throwaway cluster, the server's processes and their CPU, and the
// workload a daemon is set up with (the five-step workflow with its receiver, a webhook on
// agent.created with its receiver).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  api,
  apiHeaders,
  cpuSeconds,
  startReceiver,
  stopChild,
  type Daemon,
  type ReceiverProcess,
} from './harness.js';
import { probe, setUpWorkflow, type Target as WorkflowTarget } from './cases/workflows.js';

/** A throwaway cluster of scripts/pg-cluster.mjs. */
export interface Cluster {
  /** postgres://… for SVC_STORE_URL. */
  url: string;
  /** Its directory (the server's log is postgres.log there). */
  dir: string;
  /** The server's data directory (postmaster.pid). */
  dataDir: string;
  /** Runs SQL with psql as the superuser; answers its output. */
  sql(text: string): string;
  stop(): void;
}

/** initdb into a temp dir and start it (scripts/pg-cluster.mjs); throws without binaries. */
export async function startBenchCluster(): Promise<Cluster> {
  const module = (await import(new URL('../scripts/pg-cluster.mjs', import.meta.url).href)) as {
    startCluster(): Promise<Cluster>;
  };
  return module.startCluster();
}

/** The postmaster's pid, whose children are the backends. */
export function serverPid(cluster: Cluster): number {
  return Number(readFileSync(join(cluster.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
}

/** CPU seconds of `pid` and of its children (PostgreSQL's backends), from /proc. */
export function treeCpuSeconds(pid: number): number | undefined {
  let total = cpuSeconds(pid);
  if (total === undefined) return undefined;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent === pid) total += cpuSeconds(Number(entry)) ?? 0;
    } catch {
      // Gone meanwhile.
    }
  }
  return total;
}

/** A daemon as the workflows case loads it. */
export function workflowTarget(daemon: Daemon): WorkflowTarget {
  return { label: 'daemon', url: daemon.url, pid: daemon.pid, headers: apiHeaders(daemon) };
}

/** The runs' and the deliveries' workload on a daemon, with the receivers that hear them. */
export interface Workload {
  /** POST here (workflowTarget) runs the five-step workflow. */
  runsPath: string;
  /** Hears the runs' webhook steps. */
  runsReceiver: ReceiverProcess;
  /** Hears the deliveries of the webhook on agent.created. */
  deliveryReceiver: ReceiverProcess;
}

/**
 * Sets up the workload on `daemon`: the two receivers, the five-step workflow (one run made
 * and checked) and the webhook on agent.created. On a failure it stops what it started.
 */
export async function setUpWorkload(daemon: Daemon): Promise<Workload> {
  const started: ReceiverProcess[] = [];
  try {
    const runsReceiver = await startReceiver();
    started.push(runsReceiver);
    const deliveryReceiver = await startReceiver();
    started.push(deliveryReceiver);
    const target = workflowTarget(daemon);
    const runsPath = await setUpWorkflow(target, runsReceiver.url);
    await probe(target, runsPath);
    await api(daemon, 'POST', '/v1/webhooks', {
      url: deliveryReceiver.url,
      events: ['agent.created'],
    });
    return { runsPath, runsReceiver, deliveryReceiver };
  } catch (error) {
    for (const receiver of started) await stopChild(receiver.child);
    throw error;
  }
}

/** Stops the workload's receivers. */
export async function stopWorkload(workload: Workload): Promise<void> {
  await stopChild(workload.runsReceiver.child);
  await stopChild(workload.deliveryReceiver.child);
}
