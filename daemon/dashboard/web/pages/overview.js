// Overview: runs of the last hour by status, failing webhooks, what awaits approval, the clock
// and where the daemon runs. Reloads on any live change of the workspace.
import {
  ErrorNote,
  Loading,
  duration,
  get,
  href,
  html,
  Link,
  Status,
  time,
  useLoad,
} from '../lib.js';

const STATUSES = ['running', 'awaiting_approval', 'completed', 'failed', 'cancelled', 'timeout'];

export function Overview() {
  const { data, error } = useLoad(
    () => get('/overview'),
    [],
    () => true,
  );
  return html`
    <h1>Overview</h1>
    <${ErrorNote} error=${error} />
    ${!data && !error && html`<${Loading} what="the overview" />`}
    ${
      data &&
      html`
        <section aria-labelledby="runs-hour">
          <h2 id="runs-hour">Runs in the last hour</h2>
          <ul class="tiles">
            ${STATUSES.map(
              (status) =>
                html`<li class="tile">
                  <${Link} to=${href('/runs', { status })}>
                    <span class="figure">${data.runs_last_hour[status] ?? 0}</span>
                    <${Status} value=${status} />
                  <//>
                </li>`,
            )}
          </ul>
        </section>
        <div class="columns">
          <section aria-labelledby="approvals-h">
            <h2 id="approvals-h">Awaiting approval (${data.awaiting_approval.total_count})</h2>
            ${
              data.awaiting_approval.data.length === 0
                ? html`<p class="empty">Nothing waits for a decision.</p>`
                : html`<ul class="plain">
                    ${data.awaiting_approval.data.map(
                      (execution) =>
                        html`<li>
                          <${Link} to=${href(`/executions/${execution.execution_id}`)}
                            >${execution.result?.action ?? 'Proposed action'}${' '}
                            <code>${execution.execution_id}</code><//
                          >${' '}
                          <span class="muted">waiting since ${time(execution.created_at)}</span>
                        </li>`,
                    )}
                  </ul>`
            }
            <p><${Link} to=${href('/approvals')}>Open approvals<//></p>
          </section>
          <section aria-labelledby="failing-h">
            <h2 id="failing-h">Failing webhooks (${data.failing_webhooks.total_count})</h2>
            ${
              data.failing_webhooks.data.length === 0
                ? html`<p class="empty">No webhook has failed.</p>`
                : html`<ul class="plain">
                    ${data.failing_webhooks.data.map(
                      (hook) =>
                        html`<li>
                          <${Link} to=${href(`/webhooks/${hook.id}`)}>${hook.url}<//>${' '}
                          <${Status} value=${hook.status} />
                        </li>`,
                    )}
                  </ul>`
            }
          </section>
        </div>
        <section aria-labelledby="daemon-h">
          <h2 id="daemon-h">Daemon</h2>
          <dl class="facts">
            <dt>Sandbox clock</dt>
            <dd>
              ${time(data.clock.now)}${' '}
              ${data.clock.offset_ms ? html`<span class="muted">(${offsetWords(data.clock.offset_ms)}; real time ${time(data.clock.real_now)})</span>` : html`<span class="muted">(real time)</span>`}
            </dd>
            <dt>Environment</dt>
            <dd>${data.environment}</dd>
            <dt>Address</dt>
            <dd><code>${data.url}</code></dd>
            <dt>Data dir</dt>
            <dd><code>${data.data_dir}</code></dd>
            <dt>Version</dt>
            <dd>${data.version}</dd>
            <dt>Pending timers</dt>
            <dd>${data.pending_timers}</dd>
          </dl>
        </section>
      `
    }
  `;
}

/**
 * The clock's offset from real time in words: "4d 1h 25m ahead of real time".
 * @param {number} ms
 */
export function offsetWords(ms) {
  return ms > 0 ? `${duration(ms)} ahead of real time` : `${duration(-ms)} behind real time`;
}
