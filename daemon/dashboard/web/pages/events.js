// The event stream of the workspace, live, with a filter by type (a type or a prefix: agent.*),
// and a form to send an event by hand.
import {
  ErrorNote,
  Json,
  Loading,
  Pager,
  get,
  html,
  navigate,
  noSubmit,
  onValue,
  time,
  useLoad,
  useState,
} from '../lib.js';
import { SendEvent } from '../parts/send-event.js';

/** @param {import('../lib.js').PageProps} props */
export function Events({ query }) {
  const type = query.get('type') ?? '';
  const [cursors, setCursors] = useState(/** @type {(string | null)[]} */ ([]));
  const cursor = cursors.at(-1);
  const types = useLoad(() => get('/event-types'), []);
  /** @param {string} eventType */
  const matches = (eventType) =>
    !type || (type.endsWith('*') ? eventType.startsWith(type.slice(0, -1)) : eventType === type);
  const events = useLoad(
    () => get('/events', { query: { type, starting_after: cursor, limit: 30 } }),
    [type, cursor],
    (kind, data) => kind === 'event' && !cursor && matches(data.type),
  );
  const prefixes = [...new Set((types.data ?? []).map((name) => `${name.split('.')[0]}.*`))];
  /** @param {string} value */
  const setType = (value) => {
    setCursors([]);
    navigate(
      `/ui/events?${new URLSearchParams({ ws: query.get('ws') ?? '', ...(value ? { type: value } : {}) })}`,
    );
  };
  return html`
    <h1>Events</h1>
    <details class="drive-box">
      <summary>Send an event</summary>
      ${types.data && html`<${SendEvent} types=${types.data} />`}
    </details>
    <form class="filters" onSubmit=${noSubmit}>
      <label
        >Type
        <select value=${type} onChange=${onValue(setType)}>
          <option value="">All types</option>
          ${prefixes.map((prefix) => html`<option value=${prefix}>${prefix}</option>`)}
          ${(types.data ?? []).map((name) => html`<option value=${name}>${name}</option>`)}
        </select>
      </label>
      <span class="live-dot" aria-hidden="true"></span><span class="muted">live</span>
    </form>
    <${ErrorNote} error=${events.error} />
    ${!events.data && !events.error && html`<${Loading} what="events" />`}
    <ol class="events">
      ${(events.data?.data ?? []).map(
        (event) =>
          html`<li data-event=${event.id}>
            <details>
              <summary>
                <code class="type">${event.type}</code>${' '}
                <span class="muted">${time(event.created_at)} · ${event.id}</span>
              </summary>
              <${Json} value=${event.data} />
            </details>
          </li>`,
      )}
    </ol>
    ${events.data && events.data.data.length === 0 && html`<p class="empty">No events yet.</p>`}
    <${Pager}
      page=${events.data}
      cursors=${cursors}
      onNext=${() => setCursors([...cursors, events.data?.next_cursor ?? null])}
      onFirst=${() => setCursors([])}
    />
  `;
}
