// One agent execution as a card: who asked, the input, the proposed action with its confidence
// and output, and, while it awaits a decision, Approve / Reject (the same decision as
// svc agents approve). Shown on Approvals and on the execution's own page.
import { ActionButton, Link, href, html, post, time } from '../lib.js';

/**
 * @param {{ execution: import('../lib.js').AgentExecution, agentName: string | null, runId?: string | null, heading?: string, onDecided?: () => void }} props
 */
export function ExecutionCard({ execution, agentName, runId, heading = 'h2', onDecided }) {
  /** @param {'approve' | 'reject'} decision */
  const decide = (decision) =>
    post('/approvals/:execution_id', {
      params: { execution_id: execution.execution_id },
      body: { agent_id: execution.agent_id, decision },
    });
  const Title = heading;
  return html`<li class="card" data-execution=${execution.execution_id}>
    <${Title} class="card-title">
      ${execution.result?.action ?? 'Proposed action'}${' '}
      <span class="muted">by ${agentName ?? execution.agent_id}</span>
    <//>
    <p class="muted">
      <${Link} to=${href(`/executions/${execution.execution_id}`)}
        ><code>${execution.execution_id}</code><//
      >${' '}· asked ${time(execution.created_at)}${' '}
      ${
        runId &&
        html`· for run${' '} <${Link} to=${href(`/runs/${runId}`)}><code>${runId}</code><//>`
      }
    </p>
    <h3>Input</h3>
    <pre class="json" tabindex="0">${execution.input}</pre>
    ${
      execution.result &&
      html`<h3>Proposed</h3>
        <p>
          <strong>${execution.result.action}</strong>
          ${` (confidence ${Math.round(execution.result.confidence * 100)}%)`}
        </p>
        <pre class="json" tabindex="0">${execution.result.output}</pre>`
    }
    ${
      execution.status === 'awaiting_approval' &&
      html`<div class="buttons">
        <${ActionButton}
          kind="primary"
          label=${`Approve ${execution.execution_id}`}
          action=${() => decide('approve')}
          onDone=${onDecided}
          >Approve<//
        >
        <${ActionButton}
          kind="danger"
          label=${`Reject ${execution.execution_id}`}
          confirm=${`Reject ${execution.result?.action ?? 'this action'}? The execution ends as cancelled.`}
          yes="Yes, reject"
          action=${() => decide('reject')}
          onDone=${onDecided}
          >Reject<//
        >
      </div>`
    }
  </li>`;
}
