// An agent's executions, newest first, a page at a time (the server's cursor, read from an
// index however many there are): input, chosen action, confidence, output and status, each
// linking to the execution's page. New ones and decisions arrive live.
import { Link, Loading, Pager, Status, get, href, html, time, useLoad, useState } from '../lib.js';
import { TableHead } from './table-head.js';

const COLUMNS = ['Execution', 'Status', 'Input', 'Action', 'Confidence', 'Output', 'Started'];

/**
 * Whether a live message is about an execution of `agentId`.
 * @param {string} agentId
 * @returns {(...args: import('../lib.js').LiveArgs) => boolean}
 */
export const aboutExecutionsOf = (agentId) => (type, message) =>
  type === 'event' &&
  message.type.startsWith('agent.execution.') &&
  message.data?.agent_id === agentId;

/** @param {{ agentId: string }} props */
export function AgentExecutions({ agentId }) {
  const [cursors, setCursors] = useState(/** @type {(string | null)[]} */ ([]));
  const cursor = cursors.at(-1);
  const executions = useLoad(
    () =>
      get('/agents/:agent_id/executions', {
        params: { agent_id: agentId },
        query: { starting_after: cursor, limit: 20 },
      }),
    [agentId, cursor],
    aboutExecutionsOf(agentId),
  );
  if (!executions.data && !executions.error) return html`<${Loading} what="executions" />`;
  const rows = executions.data?.data ?? [];
  return html`<div class="table-scroll">
      <table
        class="list"
        aria-label="Executions"
        aria-busy=${executions.loading ? 'true' : 'false'}
      >
        <${TableHead} labels=${COLUMNS} />
        <tbody>
          ${rows.map(
            (execution) =>
              html`<tr data-execution=${execution.execution_id}>
                <td>
                  <${Link} to=${href(`/executions/${execution.execution_id}`)}
                    ><code>${execution.execution_id}</code><//
                  >
                </td>
                <td><${Status} value=${execution.status} /></td>
                <td class="cell-text">${execution.input}</td>
                <td>${execution.result?.action ?? '—'}</td>
                <td>${confidence(execution.result)}</td>
                <td class="cell-text">
                  ${execution.result?.output ?? execution.error?.message ?? '—'}
                </td>
                <td>${time(execution.created_at)}</td>
              </tr>`,
          )}
          ${
            rows.length === 0 &&
            html`<tr>
              <td colspan=${COLUMNS.length} class="empty">
                No executions yet. Send one a task with <code>svc agents execute ${agentId}</code>.
              </td>
            </tr>`
          }
        </tbody>
      </table>
    </div>
    <${Pager}
      page=${executions.data}
      cursors=${cursors}
      onNext=${() => setCursors([...cursors, executions.data?.next_cursor ?? null])}
      onFirst=${() => setCursors([])}
    />`;
}

/** @param {{ confidence: number } | null} result */
function confidence(result) {
  return result ? `${Math.round(result.confidence * 100)}%` : '—';
}
