// The workspace's API keys: name, scopes, environment, status and dates, when last used (never the secret);
// create one (its secret shown once, right here); revoke one, after a confirmation.
import {
  ActionButton,
  ErrorNote,
  Loading,
  Status,
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

/**
 * A key as listed (never its secret), a scope, and a key just created (its secret, once).
 * @typedef {import('../lib.js').GetAnswer<'/keys'>} KeysAnswer
 * @typedef {KeysAnswer['data'][number]} KeyView
 * @typedef {KeysAnswer['scopes'][number]} Scope
 * @typedef {import('../lib.js').PostAnswer<'/keys'>} NewKey
 */

export function Keys() {
  const keys = useLoad(() => get('/keys'), []);
  const [created, setCreated] = useState(/** @type {NewKey | null} */ (null));
  return html`
    <h1>API keys</h1>
    <${ErrorNote} error=${keys.error} />
    ${!keys.data && !keys.error && html`<${Loading} what="the keys" />`}
    ${
      keys.data &&
      html`<${CreateKey}
        scopes=${keys.data.scopes}
        onCreated=${(/** @type {NewKey} */ key) => {
          setCreated(key);
          keys.reload();
        }}
      />`
    }
    ${
      created &&
      html`<div class="created-key" role="status">
        <p>${`Key ${created.name} created. Copy its secret now: it is not shown again.`}</p>
        <pre class="json" tabindex="0" aria-label="The new key" data-field="new-key">
${created.key}</pre>
      </div>`
    }
    ${keys.data && html`<${KeyTable} keys=${keys.data.data} onChange=${keys.reload} />`}
  `;
}

/** @param {{ scopes: Scope[], onCreated: (key: NewKey) => void }} props */
function CreateKey({ scopes, onCreated }) {
  const [name, setName] = useState('');
  const [chosen, setChosen] = useState(/** @type {Set<Scope>} */ (new Set()));
  /** @param {Scope} scope */
  const toggle = (scope) => {
    const next = new Set(chosen);
    if (next.has(scope)) next.delete(scope);
    else next.add(scope);
    setChosen(next);
  };
  return html`<form class="drive" onSubmit=${noSubmit}>
    <h2>Create a key</h2>
    <label class="field"
      >Name${' '}
      <input value=${name} onInput=${onValue(setName)} />
    </label>
    <fieldset class="scopes">
      <legend>Scopes</legend>
      ${scopes.map(
        (scope) =>
          html`<label class="scope"
            ><input
              type="checkbox"
              checked=${chosen.has(scope)}
              onChange=${() => toggle(scope)}
            />${' '}${scope}</label
          >`,
      )}
    </fieldset>
    <${ActionButton}
      action=${() =>
        post('/keys', {
          body: { name, scopes: scopes.filter((scope) => chosen.has(scope)) },
        })}
      onDone=${(/** @type {NewKey} */ key) => {
        setName('');
        setChosen(new Set());
        onCreated(key);
      }}
      >Create the key<//
    >
  </form>`;
}

/** @param {{ keys: KeyView[], onChange: () => void }} props */
function KeyTable({ keys, onChange }) {
  if (keys.length === 0) return html`<p class="empty">No API keys in this workspace yet.</p>`;
  return html`<div class="table-scroll">
    <table class="list" aria-label="API keys">
      <${TableHead}
        labels=${['Name', 'Key', 'Scopes', 'Environment', 'Status', 'Created', 'Expires', 'Last used', ACTIONS_COLUMN]}
      />
      <tbody>
        ${keys.map(
          (key) =>
            html`<tr data-key=${key.id}>
              <td>${key.name}</td>
              <td><code>${key.hint}</code></td>
              <td>${key.scopes.join(', ')}</td>
              <td>${key.environment}</td>
              <td><${Status} value=${key.status} /></td>
              <td>${time(key.created_at)}</td>
              <td>${key.expires_at ? time(key.expires_at) : 'never'}</td>
              <td data-field="last-used">${key.last_used_at ? time(key.last_used_at) : 'never'}</td>
              <td>
                ${
                  key.status === 'active' &&
                  html`<${ActionButton}
                    kind="danger"
                    label=${`Revoke ${key.name}`}
                    confirm=${`Revoke ${key.name} (${key.hint})? Requests with it will answer 401 at once.`}
                    yes="Yes, revoke it"
                    action=${() => post('/keys/:key_id/revoke', { params: { key_id: key.id } })}
                    onDone=${onChange}
                    >Revoke<//
                  >`
                }
              </td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}
