// Agent executions awaiting approval, from agents and from workflow steps: the input and the
// proposed action, and Approve / Reject (the same decision as svc agents approve).
import { ErrorNote, Loading, get, html, useLoad } from '../lib.js';
import { ExecutionCard } from '../parts/execution-card.js';

export function Approvals() {
  const { data, error, reload } = useLoad(
    () => get('/approvals', { query: { limit: 50 } }),
    [],
    (type, message) =>
      type === 'run' || (type === 'event' && message.type.startsWith('agent.execution.')),
  );
  return html`
    <h1>Approvals</h1>
    <${ErrorNote} error=${error} />
    ${!data && !error && html`<${Loading} what="approvals" />`}
    ${data && data.data.length === 0 && html`<p class="empty">Nothing awaits approval in this workspace.</p>`}
    <ul class="cards">
      ${(data?.data ?? []).map(
        (execution) =>
          html`<${ExecutionCard}
            key=${execution.execution_id}
            execution=${execution}
            agentName=${execution.agent_name}
            runId=${execution.workflow_execution_id}
            onDecided=${reload}
          />`,
      )}
    </ul>
  `;
}
