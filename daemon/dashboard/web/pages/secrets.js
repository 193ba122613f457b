// The workspace's secrets ({{secrets.NAME}} in workflow steps): names and when each was created
// and last set, never a value; set one (a new value replaces the old), delete one after a
// confirmation. The value field is a password field and is emptied once sent.
import {
  ActionButton,
  ErrorNote,
  Loading,
  get,
  html,
  noSubmit,
  onValue,
  post,
  time,
  useLoad,
  useState,
} from '../lib.js';
import { ACTIONS_COLUMN, TableHead } from '../parts/table-head.js';

export function Secrets() {
  const secrets = useLoad(() => get('/secrets'), []);
  return html`
    <h1>Secrets</h1>
    <p class="hint">
      Used in workflow steps as <code>{{secrets.NAME}}</code>. Values are stored sealed and never
      shown again, here or anywhere.
    </p>
    <${ErrorNote} error=${secrets.error} />
    ${!secrets.data && !secrets.error && html`<${Loading} what="the secrets" />`}
    ${secrets.data && html`<${SetSecret} onSet=${secrets.reload} />`}
    ${secrets.data && html`<${SecretTable} secrets=${secrets.data.data} onChange=${secrets.reload} />`}
  `;
}

/** @param {{ onSet: () => void }} props */
function SetSecret({ onSet }) {
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  return html`<form class="drive" onSubmit=${noSubmit}>
    <h2>Set a secret</h2>
    <label class="field"
      >Name${' '}
      <input
        value=${name}
        placeholder="STRIPE_KEY"
        autocomplete="off"
        onInput=${onValue(setName)}
      />
    </label>
    <label class="field"
      >Value${' '}
      <input
        type="password"
        value=${value}
        autocomplete="new-password"
        onInput=${onValue(setValue)}
      />
    </label>
    <${ActionButton}
      kind="primary"
      action=${() => post('/secrets', { body: { name: name.trim(), value } })}
      onDone=${() => {
        setName('');
        setValue('');
        onSet();
      }}
      >Set the secret<//
    >
  </form>`;
}

/**
 * @param {{ secrets: import('../lib.js').GetAnswer<'/secrets'>['data'], onChange: () => void }} props
 */
function SecretTable({ secrets, onChange }) {
  if (secrets.length === 0) return html`<p class="empty">No secrets in this workspace yet.</p>`;
  return html`<div class="table-scroll">
    <table class="list" aria-label="Secrets">
      <${TableHead} labels=${['Name', 'Created', 'Last set', ACTIONS_COLUMN]} />
      <tbody>
        ${secrets.map(
          (secret) =>
            html`<tr data-secret=${secret.name}>
              <td><code>${secret.name}</code></td>
              <td>${time(secret.created_at)}</td>
              <td>${time(secret.updated_at)}</td>
              <td>
                <${ActionButton}
                  kind="danger"
                  label=${`Delete ${secret.name}`}
                  confirm=${`Delete ${secret.name}? Steps that use {{secrets.${secret.name}}} fail with secret_not_found until it is set again.`}
                  yes="Yes, delete it"
                  action=${() => post('/secrets/:name/delete', { params: { name: secret.name } })}
                  onDone=${onChange}
                  >Delete<//
                >
              </td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}
