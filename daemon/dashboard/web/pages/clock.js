// The sandbox clock and its advance buttons: whatever became due fires before the answer, as
// with svc clock advance.
import {
  ActionButton,
  ErrorNote,
  Loading,
  duration,
  get,
  html,
  noSubmit,
  onValue,
  post,
  time,
  useLoad,
  useState,
} from '../lib.js';

/** @type {[string, number][]} */
const STEPS = [
  ['1 minute', 60_000],
  ['1 hour', 3_600_000],
  ['1 day', 86_400_000],
];
/** @type {Record<string, number>} */
const UNITS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export function Clock() {
  const { data, error, reload } = useLoad(
    () => get('/clock'),
    [],
    (...[type]) => type === 'clock',
  );
  const [custom, setCustom] = useState('');
  const parsed = /^(\d+)\s*([smhd])$/.exec(custom.trim());
  return html`
    <h1>Clock</h1>
    <${ErrorNote} error=${error} />
    ${!data && !error && html`<${Loading} what="the clock" />`}
    ${
      data &&
      html`<p class="clock-now" aria-live="polite">
        <span class="figure">${time(data.now)}</span>${' '}
        ${
          data.offset_ms
            ? html`<span class="muted">${offsetText(data)}</span>`
            : html`<span class="muted">real time</span>`
        }
      </p>`
    }
    <div class="buttons">
      ${STEPS.map(
        ([name, ms]) =>
          html`<${ActionButton}
            kind="primary"
            action=${() => post('/clock/advance', { body: { ms } })}
            onDone=${reload}
            >Advance ${name}<//
          >`,
      )}
    </div>
    <form class="filters" onSubmit=${noSubmit}>
      <label
        >Custom (30s, 5m, 2h, 3d)
        <input value=${custom} onInput=${onValue(setCustom)} placeholder="90m" />
      </label>
      <${ActionButton}
        label="Advance the clock by the custom duration"
        action=${async () => {
          if (!parsed) throw new Error('Write a number and a unit: 30s, 5m, 2h or 3d.');
          return post('/clock/advance', { body: { ms: Number(parsed[1]) * UNITS[parsed[2]] } });
        }}
        onDone=${reload}
        >Advance<//
      >
    </form>
    <p class="muted">
      Waits, retries, delivery schedules and timeouts that fall due on the way run before the clock
      answers.
    </p>
  `;
}

/**
 * "ahead of real time (2026-... UTC) by 4d 1h 25m 1s": one string, so no line break joins words.
 * @param {import('../lib.js').GetAnswer<'/clock'>} data
 */
function offsetText(data) {
  const direction = data.offset_ms > 0 ? 'ahead of' : 'behind';
  return `${direction} real time (${time(data.real_now)}) by ${duration(Math.abs(data.offset_ms))}`;
}
