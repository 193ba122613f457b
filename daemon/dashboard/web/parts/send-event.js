// Send an event by hand (sandbox only, as `svc events trigger`): pick a type, start from a sample
// of its data (the one `svc events trigger` sends), edit it, send. The event goes through the
// event log like any other: its deliveries and the workflows it triggers follow.
import {
  ActionButton,
  ErrorNote,
  get,
  html,
  noSubmit,
  onValue,
  post,
  useEffect,
  useState,
} from '../lib.js';
import { JsonEditor, parseObject } from './json-editor.js';

/**
 * @typedef {import('../lib.js').GetAnswer<'/event-types'>[number]} EventType
 * @param {{ types: EventType[] }} props
 */
export function SendEvent({ types }) {
  const [type, setType] = useState(types[0]);
  const [text, setText] = useState('');
  const [sent, setSent] = useState(
    /** @type {import('../lib.js').PostAnswer<'/events'> | null} */ (null),
  );
  const [error, setError] = useState(/** @type {Error | null} */ (null));
  useEffect(() => {
    setError(null);
    get('/events/sample', { query: { type } }).then(
      (sample) => setText(JSON.stringify(sample.data, null, 2)),
      setError,
    );
  }, [type]);
  const checked = text ? parseObject(text, 'The data') : { error: 'Loading a sample…' };
  return html`<form class="drive" onSubmit=${noSubmit}>
    <label class="field"
      >Event type${' '}
      <select
        value=${type}
        onChange=${onValue((value) => setType(/** @type {EventType} */ (value)))}
      >
        ${types.map((name) => html`<option value=${name}>${name}</option>`)}
      </select>
    </label>
    <${JsonEditor}
      label="Data (a sample of this type, to edit)"
      text=${text}
      onText=${setText}
      checked=${checked}
    />
    <${ErrorNote} error=${error} />
    <${ActionButton}
      action=${() => {
        if (checked.error) throw new Error(checked.error);
        return post('/events', { body: { type, data: checked.value } });
      }}
      onDone=${setSent}
      >Send the event<//
    >
    ${
      sent &&
      html`<p role="status" class="sent">
        ${`Sent ${sent.type} as ${sent.id}: it is in the list below, with its deliveries on the way.`}
      </p>`
    }
  </form>`;
}
