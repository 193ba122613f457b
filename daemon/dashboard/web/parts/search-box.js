// The search box in the header: any id the dashboard has a page for (wex_, exec_, del_, hook_,
// agt_, wfl_), in any workspace, opens that page; an unknown id says so under the box. "/"
// anywhere on the page focuses it, as in GitHub or Grafana, except while typing in a field.
import { get, html, navigate, onValue, useEffect, useRef, useState } from '../lib.js';

/**
 * Whether a key press goes to something that takes text (where "/" is a character).
 * @param {EventTarget | null} target
 */
function typing(target) {
  // The document itself may be the target: it has no closest().
  const element = /** @type {Element | null} */ (target);
  if (typeof element?.closest !== 'function') return false;
  return Boolean(
    element.closest('input, textarea, select, [contenteditable]:not([contenteditable="false"])'),
  );
}

/**
 * "/" focuses `input` (and selects its text) unless a field has the focus or a modifier is held.
 * @param {{ current: HTMLInputElement | null }} input
 */
function useSlashShortcut(input) {
  useEffect(() => {
    /** @param {KeyboardEvent} event */
    const onKeyDown = (event) => {
      if (event.key !== '/' || event.ctrlKey || event.metaKey || event.altKey) return;
      if (event.defaultPrevented || typing(event.target)) return;
      event.preventDefault();
      input.current?.focus();
      input.current?.select();
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, []);
}

export function SearchBox() {
  const [text, setText] = useState('');
  const [error, setError] = useState(/** @type {Error | null} */ (null));
  const [busy, setBusy] = useState(false);
  const input = useRef(/** @type {HTMLInputElement | null} */ (null));
  useSlashShortcut(input);
  /** @param {Event} event */
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
      const found = await get('/locate', { query: { id } });
      setText('');
      navigate(found.path);
    } catch (failure) {
      setError(/** @type {Error} */ (failure));
    } finally {
      setBusy(false);
    }
  };
  return html`<form class="search" role="search" onSubmit=${submit}>
    <label for="find-id" class="visually-hidden">Go to an id</label>
    <input
      id="find-id"
      ref=${input}
      type="search"
      aria-keyshortcuts="/"
      title="Go to an id (press / to come here)"
      placeholder="Go to id: wex_, exec_, del_, hook_, agt_, wfl_…"
      autocomplete="off"
      spellcheck="false"
      value=${text}
      onInput=${onValue(setText)}
      aria-describedby=${error ? 'find-error' : undefined}
    />
    <button type="submit" disabled=${busy}>Go</button>
    ${error && html`<p id="find-error" class="search-error" role="alert">${error.message}</p>`}
  </form>`;
}
