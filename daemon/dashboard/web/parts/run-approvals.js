// What a run waits on a person for: each agent step of the run awaiting approval, as the card the
// Approvals page shows (the input, the proposed action, Approve / Reject: the same decision as
// svc agents approve|reject), so a run can be decided on its own page and go on from there.
import { ErrorNote, Loading, get, html, useLoad } from '../lib.js';
import { ExecutionCard } from './execution-card.js';

/** @param {{ pending: import('../lib.js').RunDetail['pending'], onDecided?: () => void }} props */
export function RunApprovals({ pending, onDecided }) {
  const waiting = pending.filter(
    (act) => act.state === 'awaiting_approval' && act.agent_execution_id,
  );
  if (waiting.length === 0) return null;
  return html`<section aria-labelledby="run-approvals-h">
    <h2 id="run-approvals-h">Awaits your decision</h2>
    <ul class="cards">
      ${waiting.map(
        (act) =>
          html`<${PendingApproval}
            key=${act.agent_execution_id}
            executionId=${act.agent_execution_id}
            onDecided=${onDecided}
          />`,
      )}
    </ul>
  </section>`;
}

/** @param {{ executionId: string, onDecided?: () => void }} props */
function PendingApproval({ executionId, onDecided }) {
  const { data, error } = useLoad(
    () => get('/agent-executions/:execution_id', { params: { execution_id: executionId } }),
    [executionId],
  );
  if (!data) {
    return html`<li class="card">
      <${ErrorNote} error=${error} />
      ${!error && html`<${Loading} what="the approval" />`}
    </li>`;
  }
  return html`<${ExecutionCard}
    execution=${data.execution}
    agentName=${data.agent_name}
    heading="h3"
    onDecided=${onDecided}
  />`;
}
