// Who listens to which hook (the list: domain/hooks.ts), registered once by the composition
// root. Only the reactions between domain modules are here; the daemon's log (failure-log.ts)
// and live followers (svc workflows wait, svc events|webhooks tail, the dashboard's live page)
// add their own listeners.
import type { ExecutionService } from '../agents/execution.service.js';
import type { CredentialService } from '../auth/credential.service.js';
import type { Hooks } from '../domain/hooks.js';
import type { WorkflowEngine } from '../engine/engine.js';
import type { TeamNotices } from '../store/team-notices.js';
import type { Agenda } from '../time/clock.service.js';
import type { Housekeeping } from '../time/housekeeping.js';
import type { TriggerService } from '../triggers/trigger.service.js';
import type { DeliveryService } from '../webhooks/deliveries/delivery.service.js';

export interface Reactors {
  executions: Pick<ExecutionService, 'endWorkOf'>;
  engine: Pick<WorkflowEngine, 'onAgentSettled' | 'cancelRunsOf'>;
  triggers: Pick<TriggerService, 'onWrite' | 'fanout'>;
  deliveries: Pick<DeliveryService, 'fanout' | 'releaseHeld'>;
  credentials: Pick<CredentialService, 'invalidate'>;
  notices: Pick<TeamNotices, 'notify'>;
  /** What falls due on the daemon clock (time/time-keeper.ts), and retention. */
  time: { agenda: Pick<Agenda, 'runDue'>; housekeeping: Pick<Housekeeping, 'run'> };
}

/** Registers the domain's reactions, in the order each hook's listeners run. */
export function registerReactions(
  hooks: Hooks,
  { executions, engine, triggers, deliveries, credentials, notices, time }: Reactors,
): void {
  hooks.add('agentDeleted', (agent) => executions.endWorkOf(agent));
  hooks.add('agentExecutionSettled', engine.onAgentSettled);
  hooks.add('workflowDeleted', (workflow) => engine.cancelRunsOf(workflow.id));
  hooks.add('workflowWritten', (change) => triggers.onWrite(change));
  // Deliveries first, then event triggers, in the event's transaction.
  hooks.add('eventStored', deliveries.fanout);
  hooks.add('eventStored', triggers.fanout);
  hooks.add('webhookResumed', (webhookId, at) => deliveries.releaseHeld(webhookId, at));
  // A key or token changed here: the cache drops it, and the other daemons drop theirs (team
  // mode: they hear the notice once this is committed).
  hooks.add('credentialsChanged', () => {
    credentials.invalidate();
    notices.notify('credentials');
  });
  // A clock move fires what fell due by it, in order, then retention (`svc clock advance 31d`
  // purges at once); the move answers once both are done.
  hooks.add('clockMoved', async () => {
    await time.agenda.runDue();
    time.housekeeping.run();
  });
}
