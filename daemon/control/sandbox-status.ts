// svc status: the daemon, its clock and brain, and the counts of what the sandbox has under way
// (runs by what they wait for, pending and held deliveries, approvals), in every workspace: a
// first look that says whether anything waits for the clock or for a person.
import type { SandboxStatus } from '../../shared/schemas/control-output.js';
import type { RunActivity } from '../engine/engine.js';
import { toIso } from '../time/clock.js';
import type { ControlDeps } from './deps.js';

export type SandboxStatusDeps = Pick<
  ControlDeps,
  'daemon' | 'clock' | 'clockService' | 'engine' | 'deliveries' | 'executions' | 'brain'
>;

export function sandboxStatus(deps: SandboxStatusDeps): SandboxStatus {
  const daemon = deps.daemon.status();
  const clock = deps.clockService.show();
  return {
    pid: daemon.pid,
    version: daemon.version,
    environment: daemon.environment,
    url: daemon.url,
    data_dir: daemon.data_dir,
    store: daemon.store,
    started_at: daemon.started_at,
    uptime_ms: daemon.uptime_ms,
    default_workspace_id: daemon.default_workspace_id,
    daemons: daemon.daemons,
    clock,
    brain: deps.brain(),
    runs: runCounts(deps.engine.activity(deps.clock.now())),
    deliveries: deps.deliveries.pendingCounts(),
    approvals: { pending: deps.executions.awaitingApprovalCount() },
  };
}

/**
 * A run moves on by itself when it is busy (a step runs or one's wake-up is due); otherwise it
 * waits for a decision when a step awaits approval, else for the clock.
 */
function runCounts(runs: RunActivity[]): SandboxStatus['runs'] {
  const counts = { running: 0, waiting: 0, awaiting_approval: 0 };
  let nextWake = Infinity;
  for (const run of runs) {
    if (run.busy) counts.running++;
    else if (run.steps.some((step) => step.state === 'awaiting_approval'))
      counts.awaiting_approval++;
    else counts.waiting++;
    if (run.busy) continue;
    for (const step of run.steps)
      if (step.wake_at !== null && step.state !== 'awaiting_approval')
        nextWake = Math.min(nextWake, step.wake_at);
  }
  return { ...counts, next_wake_at: nextWake === Infinity ? null : toIso(nextWake) };
}
