// Agent executions awaiting approval, from agents and from workflow steps: the input and the
// proposed action, and Approve / Reject (the same decision as svc agents approve).
import { ActionButton, ErrorNote, Link, get, href, html, post, time, useLoad } from '../lib.js';

export function Approvals() {
  const { data, error, reload } = useLoad(
    () => get('/approvals', { limit: 50 }),
    [],
    (type, message) =>
      type === 'run' || (type === 'event' && message.type.startsWith('agent.execution.')),
  );
  const decide = (execution, decision) =>
    post(`/approvals/${execution.execution_id}`, { agent_id: execution.agent_id, decision });
  return html`
    <h1>Approvals</h1>
    <${ErrorNote} error=${error} />
    ${data && data.data.length === 0 && html`<p class="muted">Nothing awaits approval in this workspace.</p>`}
    <ul class="cards">
      ${(data?.data ?? []).map(
        (execution) =>
          html`<li class="card" data-execution=${execution.execution_id}>
            <h2 class="card-title">
              ${execution.result?.action ?? 'Proposed action'}
              <span class="muted"> by ${execution.agent_name ?? execution.agent_id}</span>
            </h2>
            <p class="muted">
              <code>${execution.execution_id}</code> · asked ${time(execution.created_at)}
              ${
                execution.workflow_execution_id &&
                html` · for run
                  <${Link} to=${href(`/runs/${execution.workflow_execution_id}`)}
                    ><code>${execution.workflow_execution_id}</code><//
                  >`
              }
            </p>
            <h3>Input</h3>
            <pre class="json">${execution.input}</pre>
            ${
              execution.result &&
              html`<h3>Proposed</h3>
                <p>
                  <strong>${execution.result.action}</strong> (confidence
                  ${Math.round(execution.result.confidence * 100)}%)
                </p>
                <pre class="json">${execution.result.output}</pre>`
            }
            <div class="buttons">
              <${ActionButton}
                kind="primary"
                label=${`Approve ${execution.execution_id}`}
                action=${() => decide(execution, 'approve')}
                onDone=${reload}
                >Approve<//
              >
              <${ActionButton}
                kind="danger"
                label=${`Reject ${execution.execution_id}`}
                action=${() => decide(execution, 'reject')}
                onDone=${reload}
                >Reject<//
              >
            </div>
          </li>`,
      )}
    </ul>
  `;
}
