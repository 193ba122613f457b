// The search box in the header: any id the dashboard has a page for (wex_, exec_, del_, hook_,
// agt_, wfl_), in any workspace, opens that page; an unknown id says so under the box.
import { get, html, navigate, useState } from '../lib.js';

export function SearchBox() {
  const [text, setText] = useState('');
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event) => {
    event.preventDefault();
    const id = text.trim();
    if (!id) {
      setError(new Error('Give an id: wex_, exec_, del_, hook_, agt_ or wfl_...'));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const found = await get('/locate', { id });
      setText('');
      navigate(found.path);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return html`<form class="search" role="search" onSubmit=${submit}>
    <label for="find-id" class="visually-hidden">Go to an id</label>
    <input
      id="find-id"
      type="search"
      placeholder="Go to id: wex_, exec_, del_, hook_, agt_, wfl_…"
      autocomplete="off"
      spellcheck="false"
      value=${text}
      onInput=${(event) => setText(event.target.value)}
      aria-describedby=${error ? 'find-error' : undefined}
    />
    <button type="submit" disabled=${busy}>Go</button>
    ${error && html`<p id="find-error" class="search-error" role="alert">${error.message}</p>`}
  </form>`;
}
