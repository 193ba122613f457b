// A run's event history, like Temporal's: every event the run published, oldest first (type,
// time, the step of a step event, its status), each with its webhook deliveries (status,
// attempts, a link to the delivery's page). A hundred events at a time; live while shown.
import {
  Link,
  Loading,
  ErrorNote,
  Status,
  get,
  href,
  html,
  time,
  useLoad,
  useState,
} from '../lib.js';

const PAGE = 100;

/**
 * The first `shown` events of the run (pages of PAGE), and whether it has more.
 * @param {string} runId
 * @param {number} shown
 */
async function loadHistory(runId, shown) {
  /** @type {import('../lib.js').HistoryEvent[]} */
  const events = [];
  /** @type {string | null | undefined} */
  let after;
  for (;;) {
    const page = await get('/runs/:execution_id/events', {
      params: { execution_id: runId },
      query: { limit: PAGE, after },
    });
    events.push(...page.data);
    if (!page.has_more || events.length >= shown) return { events, hasMore: page.has_more };
    after = page.next_cursor;
  }
}

/** @param {{ runId: string }} props */
export function EventHistory({ runId }) {
  const [shown, setShown] = useState(PAGE);
  const history = useLoad(
    () => loadHistory(runId, shown),
    [runId, shown],
    /** @returns {boolean} */
    (type, message) =>
      (type === 'event' && message.data?.execution_id === runId) ||
      (type === 'delivery' &&
        (history.data?.events.some((event) => event.id === message.delivery.event_id) ?? false)),
  );
  if (!history.data) {
    return html`<${ErrorNote} error=${history.error} />
      ${!history.error && html`<${Loading} what="the run's events" />`}`;
  }
  const { events, hasMore } = history.data;
  if (events.length === 0) return html`<p class="empty">This run has published no event yet.</p>`;
  return html`<${ErrorNote} error=${history.error} />
    <ol class="history" aria-label=${`Events of run ${runId}`}>
      ${events.map((event) => html`<${HistoryEntry} event=${event} />`)}
    </ol>
    ${
      hasMore &&
      html`<button type="button" class="secondary" onClick=${() => setShown(shown + PAGE)}>
        Show more events
      </button>`
    }`;
}

/** @param {{ event: import('../lib.js').HistoryEvent }} props */
function HistoryEntry({ event }) {
  const { data } = event;
  return html`<li data-event=${event.id} data-type=${event.type}>
    <p class="history-line">
      <span class="muted">${time(event.created_at)}</span>${' '}
      <code>${event.type}</code>
      ${data.step_id && html`${' · step '}<code>${data.step_id}</code>${data.step_name ? ` (${data.step_name})` : ''}`}
      ${Number(data.attempt) > 1 && ` · attempt ${data.attempt}`}
      ${data.status && html`${' '}<${Status} value=${data.status} />`} ${' · '}<code class="muted"
        >${event.id}</code
      >
    </p>
    ${
      event.deliveries.length === 0
        ? html`<p class="muted history-deliveries">No webhook delivery.</p>`
        : html`<ul class="history-deliveries" aria-label=${`Deliveries of ${event.id}`}>
            ${event.deliveries.map((delivery) => html`<${DeliveryLine} delivery=${delivery} />`)}
          </ul>`
    }
  </li>`;
}

/** @param {{ delivery: import('../lib.js').Delivery }} props */
function DeliveryLine({ delivery }) {
  const attempts = `${delivery.attempts} ${delivery.attempts === 1 ? 'attempt' : 'attempts'}`;
  return html`<li data-delivery=${delivery.id}>
    ${'Delivery '}
    <${Link} to=${href(`/webhooks/${delivery.webhook_id}/deliveries/${delivery.id}`)}
      ><code>${delivery.id}</code><//
    >
    ${' to '}<${Link} to=${href(`/webhooks/${delivery.webhook_id}`)}
      ><code>${delivery.webhook_id}</code><//
    >
    ${' '}<${Status} value=${delivery.held ? 'held' : delivery.status} />
    ${` · ${attempts}`}${delivery.http_status !== null ? ` · HTTP ${delivery.http_status}` : ''}
  </li>`;
}
