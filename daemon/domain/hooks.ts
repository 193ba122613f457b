// The reactions between modules, declared in one place: each hook is named, typed (HookSignatures)
// and says when it runs (HOOKS), as Fastify's lib/hooks.js lists its hooks. A module fires a
// hook with hooks.run(name, ...), the composition root registers the listeners
// (app/reactions.ts), and every listener registered runs, in registration order: there is no
// "the" listener a second registration would replace.
//
// - inside: runs in the transaction of the change that fires it. A listener's writes commit or
//   roll back with that change, and a listener that throws refuses the change (the caller gets
//   its error, an ApiError as it is). A listener must not wait for anything.
// - after: runs once the change is committed (the firing module defers it to then). A listener
//   is told, it cannot refuse; it must not throw.
// - awaited: runs after the change, and the one who made it waits for every listener in turn
//   (hooks.runAwaited): a clock move answers once what fell due by it has run.
//
// Cross-module reactions are registered once, by the composition root (app/reactions.ts). Live
// followers add a listener per connection and remove it when it closes (add returns the
// remover): the dashboard's live page (dashboard/ui.routes.ts) and the control channel's streams
// (control/live.ts: svc events tail, svc webhooks tail, svc workflows wait). There is no second
// mechanism beside this one: no service is an EventEmitter, and none takes a listener through a
// method of its own (useX, acceptX, onX, watch). What a module needs from one built after it is
// a named dependency, given at construction (app/services.ts orders them so).
//
// Not Node's EventEmitter (which the listeners used before): its names are any string, not a
// closed list each documented with its phase, it treats a name 'error' apart and warns past ten
// listeners; what is needed here is a typed list of arrays, a few lines.
import type { ErrorCode } from '../../shared/errors.js';
import type { EventEnvelope } from '../../shared/schemas/events.js';
import type { DeliveryActivity } from '../../shared/schemas/webhooks.js';
import type { WorkflowView } from '../../shared/schemas/workflows.js';

/** A deleted agent, as its reactions need it. */
export interface DeletedAgent {
  id: string;
  workspace_id: string;
  name: string;
}

/** What the engine reads of an agent execution whose run may wait on it. */
export interface SettledAgentExecution {
  id: string;
  status: string;
  action: string | null;
  output: string | null;
  confidence: number | null;
  error_code: ErrorCode | null;
  error_message: string | null;
  agent_id: string;
}

/**
 * A workflow write as write hooks see it: null before a create, null after a delete. `after`'s
 * trigger alone carries a webhook secret in plain text (the trigger rules check it and the
 * trigger table seals it); hooks never publish it.
 */
export interface WorkflowChange {
  workspaceId: string;
  before: WorkflowView | null;
  after: WorkflowView | null;
}

/** A run changed (a step ended, it parked, it ended or was cancelled). */
export interface RunChange {
  execution_id: string;
  workflow_id: string;
  workspace_id: string;
  /** The run's status (engine/run.repository.ts RunStatus: the engine's assignment checks they agree). */
  status: 'running' | 'awaiting_approval' | 'completed' | 'failed' | 'cancelled' | 'timeout';
}

/** A step attempt that failed, and when the next one is due. */
export interface StepRetryNotice {
  workspace_id: string;
  workflow_id: string;
  execution_id: string;
  step_id: string;
  step_type: string;
  /** The failed attempt's number. */
  attempt: number;
  code: string | null;
  error: string | null;
  /** When the next attempt is due (daemon clock, ms). */
  retry_at: number;
}

/** Each hook's listener. The firing module and its listeners are named in HOOKS. */
export interface HookSignatures {
  agentDeleted(agent: DeletedAgent): void;
  agentExecutionSettled(execution: SettledAgentExecution): void;
  workflowWritten(change: WorkflowChange): void;
  workflowDeleted(workflow: { id: string; workspace_id: string }): void;
  eventStored(event: EventEnvelope, json: string): void;
  webhookResumed(webhookId: string, at: number): void;
  webhookFailed(webhook: { id: string; workspace_id: string }): void;
  runChanged(change: RunChange): void;
  stepRetrying(notice: StepRetryNotice): void;
  eventPublished(event: EventEnvelope): void;
  failurePublished(event: EventEnvelope): void;
  deliveryAttempted(activity: DeliveryActivity): void;
  credentialsChanged(): void;
  clockMoved(): Promise<void> | void;
}

export type HookName = keyof HookSignatures;

export interface HookInfo {
  when: 'inside' | 'after' | 'awaited';
  /** Who fires it, on what, and who listens today. */
  doc: string;
}

/** The list: every hook, when it runs, who fires it and who listens. */
export const HOOKS = {
  agentDeleted: {
    when: 'inside',
    doc: 'AgentService.delete marked the agent deleted. Agent executions end its unfinished executions (agent_not_found), so none is left running.',
  },
  agentExecutionSettled: {
    when: 'inside',
    doc: 'ExecutionService stored an agent execution in a decided state (completed, failed, rejected, timed out, ended). The engine moves on a run waiting for it (an approval).',
  },
  workflowWritten: {
    when: 'inside',
    doc: 'WorkflowService created, updated or deleted a workflow, its steps validated. Triggers check the trigger and keep their tables in step; an ApiError refuses the write.',
  },
  workflowDeleted: {
    when: 'inside',
    doc: 'WorkflowService.delete deleted a workflow (before workflowWritten). The engine cancels its unfinished runs.',
  },
  eventStored: {
    when: 'inside',
    doc: 'EventService stored an event (with its envelope as stored JSON text). Webhook deliveries and event triggers store what follows from it, so an accepted event never gets lost on its way to them.',
  },
  webhookResumed: {
    when: 'inside',
    doc: 'WebhookService.update made a paused or failed webhook active again. Deliveries it held go out again from `at`.',
  },
  webhookFailed: {
    when: 'inside',
    doc: "A delivery used up its attempts and WebhookService turned its webhook failed. The daemon's log says so once committed.",
  },
  runChanged: {
    when: 'after',
    doc: "The engine committed a change of a run. svc workflows wait, settle and the dashboard's live pages follow it.",
  },
  stepRetrying: {
    when: 'after',
    doc: "The engine committed a failed step attempt that will be retried (and when). The daemon's log says so.",
  },
  eventPublished: {
    when: 'after',
    doc: "EventService committed an event (or heard of one another daemon committed). Live followers only: svc events tail and the dashboard's live page. Fired only while one listens: an event published inside a transaction costs a lookup to know it was committed.",
  },
  failurePublished: {
    when: 'after',
    doc: "EventService committed an event that reports failed or cancelled work (a failed step's workflow.execution.step_completed, workflow.execution.failed, agent.execution.failed). The daemon's log says so. Other events cost nothing more for it.",
  },
  deliveryAttempted: {
    when: 'after',
    doc: "DeliveryService stored a webhook delivery attempt's outcome (or heard of one another daemon stored). The daemon's log says so when it did not deliver; svc webhooks tail and the dashboard's live page follow it.",
  },
  credentialsChanged: {
    when: 'after',
    doc: 'KeyService created, revoked or rotated a key (or minted the operator key); OAuthService revoked tokens, a grant or an app. The credential cache drops what it holds, here and (team mode) on the other daemons.',
  },
  clockMoved: {
    when: 'awaited',
    doc: "ClockService moved the sandbox clock (or heard another daemon move it). Time keeping fires what fell due and runs housekeeping, and the move answers once they are done; the dashboard's live page shows the new time.",
  },
} as const satisfies Record<HookName, HookInfo>;

type Listener<K extends HookName> = HookSignatures[K];

/** The one mechanism: listeners registered per hook, every one run when the hook fires. */
export class Hooks {
  private readonly listeners: { [K in HookName]?: Listener<K>[] } = {};

  /** Registers a listener; returns the function that removes it (a live page that closes). */
  add<K extends HookName>(name: K, listener: Listener<K>): () => void {
    const list: Listener<K>[] = (this.listeners[name] ??= []);
    list.push(listener);
    return () => {
      const at = list.indexOf(listener);
      if (at >= 0) list.splice(at, 1);
    };
  }

  /** Whether anything listens: a module skips the work of telling no one (an 'after' hook's deferral). */
  has(name: HookName): boolean {
    return (this.listeners[name]?.length ?? 0) > 0;
  }

  /**
   * An 'awaited' hook: runs every listener in registration order, each once the one before it
   * has settled; a rejection stops there and reaches the caller.
   */
  async runAwaited<K extends HookName>(name: K, ...args: Parameters<Listener<K>>): Promise<void> {
    const list = this.listeners[name];
    if (!list) return;
    for (const listener of [...list])
      await (listener as (...a: Parameters<Listener<K>>) => Promise<void> | void)(...args);
  }

  /** Runs every listener of the hook, in registration order; an error thrown stops there and reaches the caller. */
  run<K extends HookName>(name: K, ...args: Parameters<Listener<K>>): void {
    const list = this.listeners[name];
    if (!list) return;
    // A copy: a listener that removes itself (or another) does not make the next one skipped.
    for (const listener of [...list])
      (listener as (...a: Parameters<Listener<K>>) => void)(...args);
  }
}
