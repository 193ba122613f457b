// Who listens to which hook (the list: domain/hooks.ts), registered once by the composition
// root. Only the reactions between domain modules are here; the daemon's log (failure-log.ts)
// and live followers (svc workflows wait, the dashboard's live page) add their own listeners.
import type { ExecutionService } from '../agents/execution.service.js';
import type { Hooks } from '../domain/hooks.js';
import type { WorkflowEngine } from '../engine/engine.js';
import type { TriggerService } from '../triggers/trigger.service.js';
import type { DeliveryService } from '../webhooks/deliveries/delivery.service.js';

export interface Reactors {
  executions: Pick<ExecutionService, 'endWorkOf'>;
  engine: Pick<WorkflowEngine, 'onAgentSettled' | 'cancelRunsOf'>;
  triggers: Pick<TriggerService, 'onWrite' | 'fanout'>;
  deliveries: Pick<DeliveryService, 'fanout' | 'releaseHeld'>;
}

/** Registers the domain's reactions, in the order each hook's listeners run. */
export function registerReactions(
  hooks: Hooks,
  { executions, engine, triggers, deliveries }: Reactors,
): void {
  hooks.add('agentDeleted', (agent) => executions.endWorkOf(agent));
  hooks.add('agentExecutionSettled', engine.onAgentSettled);
  hooks.add('workflowDeleted', (workflow) => engine.cancelRunsOf(workflow.id));
  hooks.add('workflowWritten', (change) => triggers.onWrite(change));
  // Deliveries first, then event triggers, in the event's transaction.
  hooks.add('eventStored', deliveries.fanout);
  hooks.add('eventStored', triggers.fanout);
  hooks.add('webhookResumed', (webhookId, at) => deliveries.releaseHeld(webhookId, at));
}
