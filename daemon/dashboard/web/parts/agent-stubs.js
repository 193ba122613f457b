// An agent's sandbox stubs (what `svc agents stub list` shows): which inputs they match and
// what they answer instead of the brain, in the order they are tried.
import { ErrorNote, Loading, duration, get, html, time, useLoad } from '../lib.js';
import { TableHead } from './table-head.js';

const COLUMNS = ['Match', 'Answer', 'Delay', 'Added'];

/** @param {{ agentId: string }} props */
export function AgentStubs({ agentId }) {
  const { data, error } = useLoad(
    () => get('/agents/:agent_id/stubs', { params: { agent_id: agentId } }),
    [agentId],
  );
  if (error) return html`<${ErrorNote} error=${error} />`;
  if (!data) return html`<${Loading} what="stubs" />`;
  if (data.data.length === 0) {
    return html`<p class="empty">
      No stubs: the agent's brain answers. Add one with${' '}
      <code>svc agents stub add ${agentId} --match TEXT --result JSON</code>.
    </p>`;
  }
  return html`<div class="table-scroll">
    <table class="list" aria-label="Stubs">
      <${TableHead} labels=${COLUMNS} />
      <tbody>
        ${data.data.map(
          (stub) =>
            html`<tr data-stub=${stub.id}>
              <td><code>${stub.match}</code></td>
              <td class="cell-text">${answer(stub)}</td>
              <td>${stub.delay_ms ? duration(stub.delay_ms) : '—'}</td>
              <td>${time(stub.created_at)}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

/** @param {import('../lib.js').GetAnswer<'/agents/:agent_id/stubs'>['data'][number]} stub */
function answer(stub) {
  if (stub.fail) return `fails with ${stub.fail}`;
  if (!stub.result) return 'the brain answers, after the delay';
  const { action, output, confidence } = stub.result;
  return `${action} (confidence ${Math.round(confidence * 100)}%): ${output}`;
}
