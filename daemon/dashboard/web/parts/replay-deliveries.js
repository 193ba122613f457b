// Replay a webhook's deliveries over a range, as `svc webhooks replay` does: the events whose
// latest delivery in the window was failed (or delivered, or either) are sent again as new
// deliveries (same event id and body, new delivery ids). From and To take an ISO 8601 time, or a
// time as this page shows it (2030-01-01 12:00:00 UTC); the daemon checks the rest and answers
// as it answers the CLI. The new deliveries are listed, each a link.
import {
  ActionButton,
  Link,
  href,
  html,
  noSubmit,
  onChecked,
  onValue,
  post,
  useId,
  useState,
} from '../lib.js';

/**
 * @typedef {import('../lib.js').PostAnswer<'/webhooks/:webhook_id/replay'>} ReplayAnswer
 * @param {{ webhookId: string, onReplayed?: () => void }} props
 */
export function ReplayDeliveries({ webhookId, onReplayed }) {
  const id = useId();
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [status, setStatus] = useState(/** @type {'failed' | 'delivered' | 'all'} */ ('failed'));
  const [limit, setLimit] = useState('1000');
  const [dryRun, setDryRun] = useState(false);
  const [answer, setAnswer] = useState(/** @type {ReplayAnswer | null} */ (null));
  const replay = () => {
    const body = {
      ...timeField(from, 'from', 'From'),
      ...timeField(to, 'to', 'To'),
      status,
      limit: limitField(limit),
      dry_run: dryRun,
    };
    return post('/webhooks/:webhook_id/replay', { params: { webhook_id: webhookId }, body });
  };
  /**
   * @param {string} name
   * @param {string} label
   * @param {string} value
   * @param {(value: string) => void} set
   * @param {string} hint
   */
  const field = (name, label, value, set, hint) =>
    html`<label class="field" for=${`${id}-${name}`}
      >${label}
      <input id=${`${id}-${name}`} value=${value} placeholder=${hint} onInput=${onValue(set)}
    /></label>`;
  return html`<details class="drive-box">
    <summary>Replay deliveries over a range</summary>
    <form class="drive" onSubmit=${noSubmit}>
      <p class="muted">
        As <code>svc webhooks replay</code>: each event of this webhook whose latest delivery
        created in the range matches is sent again as a new delivery (same event and body). Times
        are on the sandbox clock; an empty From starts at the first delivery, an empty To is now.
      </p>
      ${field('from', 'From (ISO 8601)', from, setFrom, '2030-01-01T00:00:00Z')}
      ${field('to', 'To (ISO 8601)', to, setTo, 'now')}
      <label class="field" for=${`${id}-status`}
        >Events whose latest delivery
        <select
          id=${`${id}-status`}
          value=${status}
          onChange=${onValue((value) =>
            setStatus(/** @type {'failed' | 'delivered' | 'all'} */ (value)),
          )}
        >
          <option value="failed">failed</option>
          <option value="delivered">was delivered</option>
          <option value="all">failed or was delivered</option>
        </select></label
      >
      ${field('limit', 'At most (events, oldest first)', limit, setLimit, '1000')}
      <label
        ><input type="checkbox" checked=${dryRun} onChange=${onChecked(setDryRun)} />${' '}Only
        count them (dry run: send nothing)</label
      >
      <${ActionButton}
        kind="primary"
        action=${replay}
        onDone=${(/** @type {ReplayAnswer} */ result) => {
          setAnswer(result);
          if (!result.dry_run) onReplayed?.();
        }}
        >Replay<//
      >
    </form>
    ${answer && html`<${Replayed} answer=${answer} />`}
  </details>`;
}

/** @param {{ answer: ReplayAnswer }} props */
function Replayed({ answer }) {
  const span = answer.first_event_id
    ? ` (${answer.first_event_id} .. ${answer.last_event_id})`
    : '';
  const head = answer.dry_run
    ? `${answer.count} event(s) would be sent again${span}.`
    : `Replayed ${answer.count} event(s)${span}.`;
  const more = answer.truncated
    ? ` ${answer.matched - answer.count} more matched past the limit of ${answer.limit}: replay again, or raise the limit.`
    : '';
  const hidden = answer.count - answer.deliveries.length;
  return html`<div class="replayed">
    <p role="status" class="sent">${head + more}</p>
    <ul class="replayed-list" aria-label="Events replayed">
      ${answer.deliveries.map(
        (d) =>
          html`<li data-event=${d.event_id} data-delivery=${d.delivery_id ?? ''}>
            <code>${d.event_id}</code
            >${` ${d.event_type}, was `}<code>${d.original_delivery_id}</code>${` (${d.original_status})`}${
              d.delivery_id
                ? html`${', new delivery '}<${Link}
                      to=${href(`/webhooks/${answer.webhook_id}/deliveries/${d.delivery_id}`)}
                      ><code>${d.delivery_id}</code><//
                    >`
                : ''
            }
          </li>`,
      )}
    </ul>
    ${hidden > 0 && html`<p class="muted">${`And ${hidden} more, in the deliveries below.`}</p>`}
  </div>`;
}

/**
 * A time field as the daemon takes it (ISO 8601), from ISO or a time as the page shows it.
 * @param {string} text
 * @param {'from' | 'to'} name
 * @param {string} label
 */
function timeField(text, name, label) {
  const value = text.trim();
  if (value === '') return {};
  const iso = value.replace(/ UTC$/, 'Z').replace(' ', 'T');
  if (!/^\d{4}-\d{2}-\d{2}T/.test(iso) || Number.isNaN(Date.parse(iso))) {
    throw new Error(
      `${label} takes an ISO 8601 time such as 2030-01-01T00:00:00Z; got "${value}".`,
    );
  }
  return { [name]: new Date(iso).toISOString() };
}

/** The most one replay sends (REPLAY_LIMIT_MAX of shared/schemas/replay.ts). */
const LIMIT_MAX = 100000;

/** @param {string} text */
function limitField(text) {
  const value = text.trim();
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > LIMIT_MAX) {
    throw new Error(`At most takes a whole number from 1 to ${LIMIT_MAX}; got "${value}".`);
  }
  return n;
}
