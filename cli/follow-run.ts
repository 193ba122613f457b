// Follows a workflow run until it ends, for `svc workflows run|rerun --wait` and `watch`: the control channel's
// event stream says when something happened to the run (no polling delay), and each time the
// CLI reads the execution view, which is the truth (current step, step results). A slow poll
// covers what no event announces (the pause for approval) and a stream that could not
// be opened (e.g. --api-key against a daemon whose control token this user cannot read).
import type { EventEnvelope } from '../shared/schemas/events.js';
import type { ApiClient } from '../shared/api-client.js';
import { apiPath } from './api-commands.js';
import type { CliContext } from './context.js';
import { onInterrupt } from './interrupt.js';
import { openLiveStream } from './live-stream.js';
import { isTerminal, type Execution } from './workflow-views.js';

const SAFETY_POLL_MS = 1_000;

export type FollowOutcome =
  | { type: 'ended'; execution: Execution }
  | { type: 'detached'; execution: Execution | undefined; executionId: string }
  /** Parked on the frozen sandbox clock: nothing happens until the clock moves or a decision. */
  | { type: 'parked'; execution: Execution; message: string }
  /** --timeout passed first. */
  | { type: 'timeout'; execution: Execution | undefined; executionId: string };

export interface FollowOptions {
  ctx: CliContext;
  api: ApiClient;
  workflowId: string;
  /** Starts the run (after the stream is open, so no event is missed); answers its id. */
  start(): Promise<string>;
  /** Awaited before the next read (it may read the daemon's clock first). */
  onUpdate(execution: Execution): void | Promise<void>;
  /** Real-time epoch ms after which following ends (--timeout). */
  deadline?: number;
  /** Why the run cannot go on by itself (parked on the frozen clock); undefined while it can. */
  parked?(execution: Execution): Promise<string | undefined>;
}

/** A run shows it may be parked: a step waits for a later time or a decision. */
function mayBePark(execution: Execution): boolean {
  return (
    execution.status === 'awaiting_approval' ||
    execution.step_results.some((step) => step.wakes_at || step.status === 'awaiting_approval')
  );
}

export async function followRun(options: FollowOptions): Promise<FollowOutcome> {
  const { api, workflowId } = options;
  let executionId: string | undefined;
  let wake: (() => void) | undefined;
  let dirty = true;
  const poke = () => {
    dirty = true;
    wake?.();
  };

  const subscription = await openStream(options.ctx, api.tenantId, (event) => {
    const data = event.data as { execution_id?: unknown };
    // Before the id is known every run event may be ours; an approval pause names no run.
    if (
      event.type === 'agent.execution.awaiting_approval' ||
      executionId === undefined ||
      data.execution_id === executionId
    )
      poke();
  });

  const interrupt = onInterrupt(() => wake?.());
  let latest: Execution | undefined;
  try {
    executionId = await options.start();
    const path = apiPath('workflows', workflowId, 'executions', executionId);
    for (;;) {
      if (interrupt.interrupted) return { type: 'detached', execution: latest, executionId };
      if (options.deadline !== undefined && Date.now() >= options.deadline) {
        // Passed before the run was read (its start took the whole --timeout, on a busy
        // machine): read it once, so what is printed (--json: the execution) has its state
        // whatever the machine's speed, and a run that ended meanwhile is reported ended.
        if (latest === undefined) {
          latest = await api.data<Execution>('GET', path);
          if (isTerminal(latest)) return { type: 'ended', execution: latest };
        }
        return { type: 'timeout', execution: latest, executionId };
      }
      if (dirty) {
        dirty = false;
        latest = await api.data<Execution>('GET', path);
        await options.onUpdate(latest);
        if (isTerminal(latest)) return { type: 'ended', execution: latest };
        const parked =
          options.parked && mayBePark(latest) ? await options.parked(latest) : undefined;
        if (parked) return { type: 'parked', execution: latest, message: parked };
        continue;
      }
      const pollMs =
        options.deadline === undefined
          ? SAFETY_POLL_MS
          : Math.max(0, Math.min(SAFETY_POLL_MS, options.deadline - Date.now()));
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          dirty = true;
          resolve();
        }, pollMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  } finally {
    interrupt.remove();
    subscription?.unsubscribe();
  }
}

/** The run events of the workspace, live; undefined when the stream cannot be opened. */
function openStream(
  ctx: CliContext,
  workspaceId: string | undefined,
  onEvent: (event: EventEnvelope) => void,
): Promise<{ unsubscribe(): void } | undefined> {
  return openLiveStream<EventEnvelope>(
    ctx,
    (control, handlers) =>
      control.events.stream.subscribe(
        {
          ...(workspaceId ? { workspace_id: workspaceId } : {}),
          types: ['workflow.execution.*', 'agent.execution.awaiting_approval'],
        },
        handlers,
      ),
    onEvent,
  );
}
