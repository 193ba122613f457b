// Says in the daemon's log what failed, at `warn`, so that `svc logs --level warn` shows it: a
// workflow step that failed for good, a step attempt that failed and will be retried, a run that
// ended failed or timed out, an agent execution that failed, a webhook delivery attempt that did
// not deliver (retried or not), a webhook turned failed. Each
// line is written once the failure is committed (events are heard after their transaction),
// with ids to look it up and the error's code and message, never a payload, header or secret:
// step errors and events are secret-masked where they are made, and nothing else is logged.
// Cancellations and rejections are decisions, not failures: `info`.
import type { ExecutionFailedData, StepCompletedData } from '../../shared/schemas/workflows.js';
import type { EventEnvelope } from '../../shared/schemas/events.js';
import type { DeliveryActivity } from '../../shared/schemas/webhooks.js';
import type { Hooks } from '../domain/hooks.js';
import { toIso } from '../time/clock.js';
import type { WebhookService } from '../webhooks/webhook.service.js';

export interface FailureLogger {
  warn(fields: object, message: string): void;
  info(fields: object, message: string): void;
}

interface Sources {
  webhooks: Pick<WebhookService, 'row'>;
  /** stepRetrying, failurePublished, deliveryAttempted and webhookFailed (domain/hooks.ts). */
  hooks: Pick<Hooks, 'add'>;
}

export function logFailures(log: FailureLogger, { webhooks, hooks }: Sources): void {
  // Not final: the step goes on at retry_at (its final failure is the step_completed line below).
  hooks.add('stepRetrying', (notice) =>
    log.warn(
      { ...notice, retry_at: toIso(notice.retry_at) },
      'workflow step attempt failed; retrying',
    ),
  );
  // Heard once committed, for the events that report failed or cancelled work only.
  hooks.add('failurePublished', (event) => {
    if (event.type === 'workflow.execution.step_completed') logStepFailure(log, event);
    else if (event.type === 'workflow.execution.failed') logRunFailure(log, event);
    else if (event.type === 'agent.execution.failed') logAgentFailure(log, event);
  });
  hooks.add('deliveryAttempted', (activity) => logAttempt(log, activity));
  hooks.add('webhookFailed', (row) =>
    // Heard inside the transaction: written once it committed (the webhook is failed then).
    queueMicrotask(() => {
      try {
        if (webhooks.row(row.workspace_id, row.id).status !== 'failed') return;
      } catch {
        return; // Deleted since.
      }
      log.warn(
        { workspace_id: row.workspace_id, webhook_id: row.id },
        'webhook failed: a delivery used up its attempts; it holds new deliveries until made active again (svc webhooks update --status active)',
      );
    }),
  );
}

function logStepFailure(log: FailureLogger, event: EventEnvelope): void {
  const step = event.data as unknown as StepCompletedData;
  log.warn(
    {
      workspace_id: event.workspace_id,
      workflow_id: step.workflow_id,
      execution_id: step.execution_id,
      step_id: step.step_id,
      step_type: step.step_type,
      attempt: step.attempt,
      ...errorFields(step.error),
    },
    'workflow step failed',
  );
}

function logRunFailure(log: FailureLogger, event: EventEnvelope): void {
  const run = event.data as unknown as ExecutionFailedData;
  const fields = {
    workspace_id: event.workspace_id,
    workflow_id: run.workflow_id,
    execution_id: run.execution_id,
    status: run.status,
    failed_step: run.failed_step,
    ...errorFields(run.error),
  };
  if (run.status === 'cancelled') log.info(fields, 'workflow run cancelled');
  else log.warn(fields, `workflow run ${run.status === 'timeout' ? 'timed out' : 'failed'}`);
}

/** An error as log fields: `code` to filter on, `error` its (secret-masked) message. */
function errorFields(error: { code: string; message: string } | null | undefined) {
  return { code: error?.code, error: error?.message };
}

function logAgentFailure(log: FailureLogger, event: EventEnvelope): void {
  const data = event.data as {
    execution_id?: string;
    agent_id?: string;
    status?: string;
    error?: { code: string; message: string };
  };
  const fields = {
    workspace_id: event.workspace_id,
    agent_id: data.agent_id,
    execution_id: data.execution_id,
    status: data.status,
    ...errorFields(data.error),
  };
  if (data.status === 'cancelled') log.info(fields, 'agent execution cancelled');
  else log.warn(fields, 'agent execution failed');
}

function logAttempt(log: FailureLogger, { delivery, workspace_id }: DeliveryActivity): void {
  const status = delivery.http_status;
  if (delivery.error === null && status !== null && status >= 200 && status < 300) return;
  log.warn(
    {
      workspace_id,
      webhook_id: delivery.webhook_id,
      delivery_id: delivery.id,
      event_type: delivery.event_type,
      attempt: delivery.attempts,
      http_status: status,
      error: delivery.error,
      delivery_status: delivery.status,
      next_attempt_at: delivery.next_attempt_at,
    },
    'webhook delivery attempt failed',
  );
}
