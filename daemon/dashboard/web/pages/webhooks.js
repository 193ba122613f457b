// Webhooks with their state; a webhook's deliveries with every attempt (time, status code,
// duration, the first bytes of the receiver's answer, the signature header sent); Resend a
// delivery, Resume a failed webhook. Delivery attempts arrive live.
import {
  ActionButton,
  ErrorNote,
  Link,
  Loading,
  Pager,
  Status,
  duration,
  get,
  href,
  html,
  post,
  time,
  useLoad,
  useState,
} from '../lib.js';
import { ReplayDeliveries } from '../parts/replay-deliveries.js';
import { ACTIONS_COLUMN, TableHead } from '../parts/table-head.js';

/** @param {import('../lib.js').PageProps} props */
export function Webhooks({ params }) {
  const hooks = useLoad(
    () => get('/webhooks', { query: { limit: 100 } }),
    [],
    (...[type]) => type === 'delivery',
  );
  const selected = params.webhookId ?? hooks.data?.data[0]?.id;
  return html`
    <h1>Webhooks & deliveries</h1>
    <${ErrorNote} error=${hooks.error} />
    ${!hooks.data && !hooks.error && html`<${Loading} what="webhooks" />`}
    ${
      hooks.data &&
      hooks.data.data.length === 0 &&
      html`<p class="empty">
        No webhooks in this workspace. Create one with <code>svc webhooks create</code>.
      </p>`
    }
    <div class="table-scroll">
      <table class="list" aria-label="Webhooks">
        <${TableHead}
          labels=${['URL', 'State', 'Events', 'Deliveries', 'Success rate', 'Last failure', ACTIONS_COLUMN]}
        />
        <tbody>
          ${(hooks.data?.data ?? []).map(
            (hook) =>
              html`<tr
                aria-selected=${hook.id === selected ? 'true' : 'false'}
                class=${hook.id === selected ? 'selected' : ''}
              >
                <td>
                  <${Link} to=${href(`/webhooks/${hook.id}`)}>${hook.url}<//>${' '}
                  <span class="muted"><code>${hook.id}</code></span>
                </td>
                <td><${Status} value=${hook.status} /></td>
                <td>${hook.events.join(', ')}</td>
                <td>${hook.stats.total_deliveries}</td>
                <td>${Math.round(hook.stats.success_rate * 100)}%</td>
                <td>${time(hook.stats.last_failure_at)}</td>
                <td>
                  ${
                    hook.status !== 'active' &&
                    html`<${ActionButton}
                      label=${`Resume ${hook.url}`}
                      action=${() => post('/webhooks/:webhook_id/resume', { params: { webhook_id: hook.id } })}
                      onDone=${hooks.reload}
                      >Resume<//
                    >`
                  }
                </td>
              </tr>`,
          )}
        </tbody>
      </table>
    </div>
    ${params.deliveryId && html`<${LinkedDelivery} key=${params.deliveryId} webhookId=${selected} deliveryId=${params.deliveryId} />`}
    ${selected && html`<${Deliveries} key=${selected} webhookId=${selected} />`}
  `;
}

/** @param {{ webhookId: string }} props */
function Deliveries({ webhookId }) {
  const [cursors, setCursors] = useState(/** @type {(string | null)[]} */ ([]));
  const cursor = cursors.at(-1);
  const list = useLoad(
    () =>
      get('/webhooks/:webhook_id/deliveries', {
        params: { webhook_id: webhookId },
        query: { starting_after: cursor, limit: 20 },
      }),
    [webhookId, cursor],
    (type, data) => type === 'delivery' && data.webhook_id === webhookId,
  );
  return html`<section aria-labelledby="deliveries-h">
    <h2 id="deliveries-h">Deliveries of <code>${webhookId}</code></h2>
    <${ReplayDeliveries} webhookId=${webhookId} onReplayed=${list.reload} />
    <${ErrorNote} error=${list.error} />
    ${list.data && list.data.data.length === 0 && html`<p class="empty">No deliveries yet.</p>`}
    <ul class="deliveries">
      ${(list.data?.data ?? []).map((delivery) => html`<${Delivery} key=${delivery.id} webhookId=${webhookId} summary=${delivery} />`)}
    </ul>
    <${Pager}
      page=${list.data}
      cursors=${cursors}
      onNext=${() => setCursors([...cursors, list.data?.next_cursor ?? null])}
      onFirst=${() => setCursors([])}
    />
  </section>`;
}

/** The delivery a link names (del_...), opened, above the webhook's list. */
/** @param {{ webhookId: string, deliveryId: string }} props */
function LinkedDelivery({ webhookId, deliveryId }) {
  const { data, error } = useLoad(
    () =>
      get('/webhooks/:webhook_id/deliveries/:delivery_id', {
        params: { webhook_id: webhookId, delivery_id: deliveryId },
      }),
    [webhookId, deliveryId],
    (type, message) => type === 'delivery' && message.delivery?.id === deliveryId,
  );
  return html`<section aria-labelledby="linked-h">
    <h2 id="linked-h">Delivery <code>${deliveryId}</code></h2>
    <${ErrorNote} error=${error} />
    ${!data && !error && html`<${Loading} what="the delivery" />`}
    ${
      data &&
      html`<ul class="deliveries">
        <${Delivery} webhookId=${webhookId} summary=${data} initiallyOpen=${true} />
      </ul>`
    }
  </section>`;
}

/** @param {{ webhookId: string, summary: import('../lib.js').Delivery, initiallyOpen?: boolean }} props */
function Delivery({ webhookId, summary, initiallyOpen = false }) {
  const [open, setOpen] = useState(initiallyOpen);
  return html`<li class="delivery" data-delivery=${summary.id}>
    <details
      open=${initiallyOpen}
      onToggle=${(/** @type {Event} */ event) =>
        setOpen(/** @type {HTMLDetailsElement} */ (event.target).open)}
    >
      <summary>
        <${Status} value=${summary.held ? 'held' : summary.status} />
        <code>${summary.event_type}</code>
        <span>${summary.attempts} attempt${summary.attempts === 1 ? '' : 's'}</span>
        <span class="muted"
          >${summary.http_status ? `HTTP ${summary.http_status}` : (summary.error ?? '')}</span
        >
        <span class="muted">${time(summary.created_at)}</span>
        ${summary.next_attempt_at && html`<span class="due">next try ${time(summary.next_attempt_at)}</span>`}
      </summary>
      ${open && html`<${Attempts} webhookId=${webhookId} deliveryId=${summary.id} />`}
    </details>
    ${summary.held && html`<${HeldHint} webhookId=${webhookId} />`}
  </li>`;
}

/** Why a pending delivery is not attempted, and what sends it (the API's `held`). */
/** @param {{ webhookId: string }} props */
function HeldHint({ webhookId }) {
  return html`<p class="hint held-hint">
    Held: the webhook is not active, so nothing is attempted. Resume the webhook (its Resume button
    above, or <code>svc webhooks update ${webhookId} --status active</code>) to send every held
    delivery at once, or Resend now to send this one.
  </p>`;
}

/** @param {{ webhookId: string, deliveryId: string }} props */
function Attempts({ webhookId, deliveryId }) {
  const params = { webhook_id: webhookId, delivery_id: deliveryId };
  const { data, error, reload } = useLoad(
    () => get('/webhooks/:webhook_id/deliveries/:delivery_id', { params }),
    [webhookId, deliveryId],
    (type, message) => type === 'delivery' && message.delivery.id === deliveryId,
  );
  return html`<div class="attempts">
    <${ErrorNote} error=${error} />
    <div class="buttons">
      <${ActionButton}
        kind="primary"
        label=${`Resend now ${deliveryId}`}
        action=${() => post('/webhooks/:webhook_id/deliveries/:delivery_id/resend', { params })}
        onDone=${reload}
        >Resend now<//
      >
      <span class="muted"
        >Event <code>${data?.event_id ?? ''}</code>, delivery <code>${deliveryId}</code></span
      >
    </div>
    <div
      class="table-scroll"
      tabindex="0"
      role="region"
      aria-label=${`Attempts of ${deliveryId}, scrolls sideways`}
    >
      <table class="list" aria-label=${`Attempts of ${deliveryId}`}>
        <${TableHead}
          labels=${['#', 'Time', 'Status', 'Duration', 'Answer (first bytes)', 'Signature sent']}
        />
        <tbody>
          ${(data?.attempts_history ?? []).map(
            (attempt) =>
              html`<tr data-attempt=${attempt.attempt}>
                <td>${attempt.attempt}</td>
                <td>${time(attempt.attempted_at)}</td>
                <td>
                  ${attempt.outcome === 'unknown' ? html`<span class="muted" title=${attempt.error ?? 'In flight'}>unknown</span>` : attempt.http_status ? html`<span class=${attempt.http_status < 300 ? 'ok' : 'bad'}>HTTP ${attempt.http_status}</span>` : html`<span class="bad">${attempt.error}</span>`}
                </td>
                <td>${duration(attempt.response_time_ms)}</td>
                <td><pre class="answer" tabindex="0">${attempt.response_head ?? '—'}</pre></td>
                <td><code class="signature">${attempt.signature ?? '—'}</code></td>
              </tr>`,
          )}
        </tbody>
      </table>
    </div>
  </div>`;
}
