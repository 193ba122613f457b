// One agent execution (a deep link: exec_...): its agent, status, input, chosen action with its
// confidence and output, the run that asked for it, and Approve / Reject while it waits.
import {
  ErrorNote,
  Link,
  Loading,
  Status,
  duration,
  get,
  href,
  html,
  time,
  useLoad,
} from '../lib.js';
import { ExecutionCard } from '../parts/execution-card.js';

/** @param {import('../lib.js').PageProps} props */
export function Execution({ params }) {
  const { data, error, reload } = useLoad(
    () => get('/agent-executions/:execution_id', { params: { execution_id: params.id } }),
    [params.id],
    (type, message) =>
      (type === 'event' && message.data?.execution_id === params.id) || type === 'run',
  );
  const execution = data?.execution;
  return html`
    <p class="crumbs">
      <${Link} to=${href('/approvals')}>Approvals<//>${' '}/${' '}
      ${execution && html`<${Link} to=${href(`/agents/${execution.agent_id}`)}>${data.agent_name ?? execution.agent_id}<//>`}
    </p>
    <h1>Agent execution <code>${params.id}</code></h1>
    <${ErrorNote} error=${error} />
    ${!data && !error && html`<${Loading} what="the execution" />`}
    ${
      execution &&
      html`<dl class="facts">
          <dt>Status</dt>
          <dd><${Status} value=${execution.status} /></dd>
          <dt>Started</dt>
          <dd>${time(execution.created_at)}</dd>
          <dt>Took</dt>
          <dd>${duration(execution.execution_time_ms)}</dd>
          ${
            execution.approval &&
            html`<dt>Decision</dt>
              <dd>${execution.approval.decision} at ${time(execution.approval.decided_at)}</dd>`
          }
          ${
            execution.error &&
            html`<dt>Error</dt>
              <dd><strong>${execution.error.code}</strong>: ${execution.error.message}</dd>`
          }
        </dl>
        <ul class="cards">
          <${ExecutionCard}
            execution=${execution}
            agentName=${data.agent_name}
            runId=${data.workflow_execution_id}
            onDecided=${reload}
          />
        </ul>`
    }
  `;
}
