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
  | { type: 'detached'; execution: Execution | undefined; executionId: string };

export interface FollowOptions {
  ctx: CliContext;
  api: ApiClient;
  workflowId: string;
  /** Starts the run (after the stream is open, so no event is missed); answers its id. */
  start(): Promise<string>;
  /** Awaited before the next read (it may read the daemon's clock first). */
  onUpdate(execution: Execution): void | Promise<void>;
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
      if (dirty) {
        dirty = false;
        latest = await api.data<Execution>('GET', path);
        await options.onUpdate(latest);
        if (isTerminal(latest)) return { type: 'ended', execution: latest };
        continue;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          dirty = true;
          resolve();
        }, SAFETY_POLL_MS);
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
