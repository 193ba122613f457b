// The workspace's workflows: status, trigger, last run and success rate, each linking to its page.
import { ErrorNote, Link, Loading, Status, get, href, html, time, useLoad } from '../lib.js';

export function Workflows() {
  const { data, error } = useLoad(
    () => get('/workflows'),
    [],
    (type, message) => type === 'run' || (type === 'event' && message.type.startsWith('workflow.')),
  );
  return html`
    <h1>Workflows</h1>
    <${ErrorNote} error=${error} />
    ${!data && !error && html`<${Loading} what="workflows" />`}
    ${
      data &&
      (data.data.length === 0
        ? html`<p class="empty">
            No workflows in this workspace. Create one with <code>svc workflows create</code> or
            from a template.
          </p>`
        : html`<div class="table-scroll">
            <table class="list" aria-label="Workflows">
              <thead>
                <tr>
                  <th scope="col">Workflow</th>
                  <th scope="col">Status</th>
                  <th scope="col">Trigger</th>
                  <th scope="col">Steps</th>
                  <th scope="col">Last run</th>
                  <th scope="col">Success rate</th>
                </tr>
              </thead>
              <tbody>
                ${data.data.map(
                  (wf) =>
                    html`<tr data-workflow=${wf.id}>
                      <td>
                        <${Link} to=${href(`/workflows/${wf.id}`)}>${wf.name}<//>${' '}
                        <code class="muted">${wf.id}</code>
                      </td>
                      <td><${Status} value=${wf.status} /></td>
                      <td>${wf.trigger.type}</td>
                      <td>${wf.steps.length}</td>
                      <td>${time(wf.last_executed_at)}</td>
                      <td>
                        ${wf.stats.total_executions === 0 ? '—' : `${Math.round(wf.stats.success_rate * 100)}% of ${wf.stats.total_executions}`}
                      </td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`)
    }
  `;
}
