// The few things every page shares: rendering (Preact + htm), the dashboard's JSON API (the
// workspace and the CSRF token added for the page), the live stream, and formatting.
import { h, render } from './vendor/preact.mjs';
import {
  useCallback,
  useEffect,
  useId,
  useLayoutEffect,
  useRef,
  useState,
} from './vendor/hooks.mjs';
import htm from './vendor/htm.mjs';
import { formatDuration } from './shared/duration.js';

/**
 * The dashboard's JSON API as the daemon declares it (daemon/dashboard/contract.ts): which paths
 * exist, what each takes and answers. `npm run typecheck` checks every call below against it.
 * @typedef {import('../contract.js').GetPath} GetPath
 * @typedef {import('../contract.js').PostPath} PostPath
 */
/**
 * @template {GetPath} P
 * @typedef {import('../contract.js').GetArgs<P>} GetArgs
 */
/**
 * @template {GetPath} P
 * @typedef {import('../contract.js').GetAnswer<P>} GetAnswer
 */
/**
 * @template {PostPath} P
 * @typedef {import('../contract.js').PostArgs<P>} PostArgs
 */
/**
 * @template {PostPath} P
 * @typedef {import('../contract.js').PostAnswer<P>} PostAnswer
 */
/**
 * What useLoad() gives a component.
 * @template T
 * @typedef {{ data: T | null, error: Error | null, loading: boolean, reload: () => void }} Loaded
 */
/**
 * The API's objects as the pages pass them to their parts (named once, from the routes).
 * @typedef {GetAnswer<'/runs/:execution_id'>} RunDetail
 * @typedef {RunDetail['execution']} Run
 * @typedef {RunDetail['graph']} StepGraphData
 * @typedef {GetAnswer<'/workflows/:workflow_id'>} WorkflowDetail
 * @typedef {GetAnswer<'/agent-executions/:execution_id'>['execution']} AgentExecution
 * @typedef {GetAnswer<'/runs/:execution_id/events'>['data'][number]} HistoryEvent
 * @typedef {GetAnswer<'/webhooks/:webhook_id/deliveries'>['data'][number]} Delivery
 * @typedef {GetAnswer<'/agents/:agent_id/knowledge'>['data'][number]} KnowledgeDocument
 */
/**
 * What a component may render: text, elements, lists of them, nothing.
 * @typedef {import('./vendor/preact.mjs').ComponentChildren} Children
 */
/**
 * A page of a list as the API answers it (the fields the pager reads).
 * @typedef {{ total_count: number, has_more: boolean }} PageInfo
 */
/**
 * What app.js gives each page: its path's parameters (an id) and the URL's query.
 * @typedef {{ params: Record<string, string>, query: URLSearchParams }} PageProps
 */

export const html = htm.bind(h);
export { render, useCallback, useEffect, useId, useLayoutEffect, useRef, useState };

/** Set once the session is known (app.js). */
export const session = { csrf: '', workspace: '' };

export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {{ error?: { message?: string, code?: string } } | null} body
   */
  constructor(status, body) {
    super(body?.error?.message ?? `The daemon answered HTTP ${status}.`);
    this.status = status;
    this.code = body?.error?.code;
  }
}

/**
 * A path of the API with its :params filled in (each encoded) and the query added.
 * @param {string} path
 * @param {Record<string, string> | undefined} params
 * @param {Record<string, unknown>} [query]
 */
function apiUrl(path, params, query = {}) {
  const filled = path.replace(/:([a-z_]+)/g, (_match, name) => {
    const value = params?.[name];
    if (value === undefined) throw new Error(`${path}: no value for :${name}`);
    return encodeURIComponent(value);
  });
  return withQuery(`/ui/api${filled}`, query);
}

/**
 * @param {string} path
 * @param {Record<string, unknown>} params
 */
function withQuery(path, params) {
  const query = new URLSearchParams();
  if (session.workspace) query.set('workspace', session.workspace);
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') query.set(key, String(value));
  }
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}

/** @param {Response} response */
async function answer(response) {
  const body = await response.json().catch(() => null);
  if (response.status === 401) {
    // The session ended (daemon restart): the page itself then shows how to log in again.
    location.reload();
  }
  if (!response.ok) throw new ApiError(response.status, body);
  return body;
}

/**
 * GET a path of the API (its :params from `args.params`, its query from `args.query`).
 * @template {GetPath} P
 * @param {P} path
 * @param {GetArgs<P>} [args]
 * @returns {Promise<GetAnswer<P>>}
 */
export async function get(path, args) {
  const url = apiUrl(path, args?.params, args?.query);
  return answer(await fetch(url, { credentials: 'same-origin' }));
}

/**
 * POST `args.body` as JSON to a path of the API (its :params from `args.params`).
 * @template {PostPath} P
 * @param {P} path
 * @param {PostArgs<P>} [args]
 * @returns {Promise<PostAnswer<P>>}
 */
export async function post(path, args) {
  return postText(path, args?.params, JSON.stringify(args?.body ?? {}));
}

/**
 * POST of JSON text as the user wrote it (a hook's body is sent on byte for byte).
 * @template {PostPath} P
 * @param {P} path
 * @param {PostArgs<P>['params']} params
 * @param {string} text
 * @returns {Promise<PostAnswer<P>>}
 */
export async function postText(path, params, text) {
  return answer(
    await fetch(apiUrl(path, params), {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrf },
      body: text,
    }),
  );
}

// --- live updates: one EventSource per workspace, shared by the pages ---------------------------

/**
 * A live message as the daemon declares it (contract.ts liveMessages): its type and its data, or
 * ('open', null) when the stream (re)connects. Testing the type narrows the data.
 * @typedef {import('../contract.js').LiveArgs} LiveArgs
 * @typedef {import('../contract.js').LiveType} LiveType
 * @typedef {(...args: LiveArgs) => void} LiveListener
 */

/** @type {Set<LiveListener>} */
const listeners = new Set();
/** @type {EventSource | undefined} */
let source;

/** Every message type the stream sends (contract.ts liveMessages), each listened to. */
/** @type {{ [K in LiveType]: K }} */
const LIVE_TYPES = { event: 'event', run: 'run', delivery: 'delivery', clock: 'clock' };

/** @param {string} workspace */
export function connectLive(workspace) {
  source?.close();
  source = new EventSource(`/ui/api/stream?workspace=${encodeURIComponent(workspace)}`);
  for (const type of Object.values(LIVE_TYPES)) {
    source.addEventListener(type, (message) => {
      // The daemon sends each type's data as contract.ts declares it (ui.routes.ts's send).
      const args = /** @type {LiveArgs} */ ([type, JSON.parse(message.data)]);
      for (const listener of listeners) listener(...args);
    });
  }
  // A change made after a page loaded but before the stream was connected (or while it was
  // reconnecting) sends no message: on every (re)connection the pages load again.
  source.addEventListener('open', () => {
    for (const listener of listeners) listener('open', null);
  });
}

/**
 * Calls `onChange(type, data)` for each live message while the component is shown.
 * @param {LiveListener} onChange
 */
export function useLive(onChange) {
  const latest = useRef(onChange);
  latest.current = onChange;
  useEffect(() => {
    /** @type {LiveListener} */
    const listener = (...args) => latest.current(...args);
    listeners.add(listener);
    return () => void listeners.delete(listener);
  }, []);
}

/**
 * Loads with `load()` now, again when `deps` change, when `isRelevant(type, data)` says a live
 * message concerns it (changes arriving together cause one reload), and when the live stream
 * (re)connects. `data` is what `load()` resolved to (typed by the API call it makes); the live
 * message's data is typed by its type (contract.ts liveMessages).
 * @template T
 * @param {() => Promise<T>} load
 * @param {unknown[]} deps
 * @param {(...args: LiveArgs) => boolean} [isRelevant]
 */
export function useLoad(load, deps, isRelevant = () => false) {
  /** @type {{ data: T | null, error: Error | null, loading: boolean }} */
  const initial = { data: null, error: null, loading: true };
  const [state, setState] = useState(initial);
  const scheduled = useRef(false);
  const run = useCallback(() => {
    load().then(
      (data) => setState({ data, error: null, loading: false }),
      (error) => setState((old) => ({ ...old, error, loading: false })),
    );
  }, deps);
  useEffect(run, [run]);
  useLive((...args) => {
    if ((args[0] !== 'open' && !isRelevant(...args)) || scheduled.current) return;
    scheduled.current = true;
    queueMicrotask(() => {
      scheduled.current = false;
      run();
    });
  });
  return { ...state, reload: run };
}

// --- navigation ------------------------------------------------------------------------------------

/**
 * A dashboard URL with the current workspace kept.
 * @param {string} path
 * @param {Record<string, string | number | boolean | null | undefined>} [params]
 */
export function href(path, params = {}) {
  const query = new URLSearchParams();
  if (session.workspace) query.set('ws', session.workspace);
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') query.set(key, String(value));
  }
  const text = query.toString();
  return `/ui${path}${text ? `?${text}` : ''}`;
}

/** @param {string} url */
export function navigate(url) {
  history.pushState(null, '', url);
  window.dispatchEvent(new window.PopStateEvent('popstate'));
}

/**
 * A link that changes the page without reloading it; other props go to the <a>.
 * @param {{ to: string, children?: Children } & Record<string, unknown>} props
 */
export function Link({ to, children, ...rest }) {
  /** @param {MouseEvent} event */
  const onClick = (event) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
    event.preventDefault();
    navigate(to);
  };
  return html`<a href=${to} onClick=${onClick} ...${rest}>${children}</a>`;
}

// --- forms ---------------------------------------------------------------------------------------

/**
 * An input, select or textarea's handler (onInput, onChange) that hands `use` the field's value.
 * @param {(value: string) => void} use
 * @returns {(event: Event) => void}
 */
export function onValue(use) {
  return (event) => use(/** @type {HTMLInputElement} */ (event.target).value);
}

/**
 * A checkbox's onChange that hands `use` whether it is ticked.
 * @param {(checked: boolean) => void} use
 * @returns {(event: Event) => void}
 */
export function onChecked(use) {
  return (event) => use(/** @type {HTMLInputElement} */ (event.target).checked);
}

/**
 * A form's onSubmit: the form never submits itself (its buttons act, Enter included).
 * @param {Event} event
 */
export function noSubmit(event) {
  event.preventDefault();
}

// --- formatting ----------------------------------------------------------------------------------

/** @param {string | null | undefined} iso */
export function time(iso) {
  if (!iso) return '—';
  const date = new Date(iso);
  return date
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC');
}

/**
 * A duration in the words the CLI uses (shared/duration.ts): 449ms, 2.35s, 1m 30s, 4d 1h.
 * @param {number | null | undefined} ms
 */
export function duration(ms) {
  if (ms === null || ms === undefined) return '—';
  return formatDuration(ms);
}

/** @param {{ value: string }} props */
export function Status({ value }) {
  return html`<span class="badge status-${value}">${String(value).replace(/_/g, ' ')}</span>`;
}

/**
 * JSON as text; stored secret values already read [secret:NAME], shown as a marker.
 * @param {{ value: unknown }} props
 */
export function Json({ value }) {
  if (value === null || value === undefined) return html`<span class="muted">—</span>`;
  const text = JSON.stringify(value, null, 2);
  const parts = text.split(/(\[secret(?::[A-Za-z0-9_]+)?\])/g);
  // Focusable: a long value scrolls, and a keyboard must be able to scroll it too.
  return html`<pre class="json" tabindex="0">
${parts.map((part) =>
      /^\[secret/.test(part)
        ? html`<mark class="secret" title="secret value, never shown">[secret]</mark>`
        : part,
    )}</pre>`;
}

/**
 * What a page shows until its data came: announced to screen readers, never left empty.
 * @param {{ what?: string }} props
 */
export function Loading({ what = 'data' }) {
  return html`<p class="loading" role="status">Loading ${what}…</p>`;
}

/** @param {{ error: Error | null | undefined }} props */
export function ErrorNote({ error }) {
  if (!error) return null;
  return html`<p class="error-note" role="alert">${error.message}</p>`;
}

/**
 * Older / newer pages of a list, with the server's cursor.
 * @param {{ page: PageInfo | null | undefined, cursors: unknown[], onNext: () => void, onFirst: () => void }} props
 */
export function Pager({ page, cursors, onNext, onFirst }) {
  if (!page) return null;
  return html`<nav class="pager" aria-label="Pages">
    <span class="muted">${page.total_count} in all</span>
    ${cursors.length > 0 && html`<button type="button" class="secondary" onClick=${onFirst}>Newest</button>`}
    ${page.has_more && html`<button type="button" class="secondary" onClick=${onNext}>Older</button>`}
  </nav>`;
}

/**
 * A button that runs an action, shows it is busy, and reports the outcome. With `confirm` (a
 * question), the first click only asks, next to the button: the action runs on "Yes", and
 * "No" (or Escape) leaves everything as it was. For what cannot be undone: cancel, reject.
 * `onDone` gets what the action resolved to.
 * @template T
 * @param {{ action: () => Promise<T>, children?: Children, kind?: string, label?: string, onDone?: (result: T) => void, confirm?: string, yes?: string }} props
 */
export function ActionButton({ action, children, kind = '', label, onDone, confirm, yes = 'Yes' }) {
  const [busy, setBusy] = useState(false);
  const [asking, setAsking] = useState(false);
  const [error, setError] = useState(/** @type {Error | null} */ (null));
  const noButton = useRef(/** @type {HTMLButtonElement | null} */ (null));
  const trigger = useRef(/** @type {HTMLButtonElement | null} */ (null));
  const refocus = useRef(false);
  // Before the browser paints or takes the next key: with an effect, a key pressed at once
  // would land on the page body, the button that had it being gone.
  useLayoutEffect(() => {
    if (asking) noButton.current?.focus();
    // "No" or Escape removed the focused question: the focus goes back to the button that asked.
    else if (refocus.current) trigger.current?.focus();
    refocus.current = false;
  }, [asking]);
  const dismiss = () => {
    refocus.current = true;
    setAsking(false);
  };
  const run = async () => {
    setAsking(false);
    setBusy(true);
    setError(null);
    try {
      const result = await action();
      onDone?.(result);
    } catch (failure) {
      setError(/** @type {Error} */ (failure));
    } finally {
      setBusy(false);
    }
  };
  const click = () => (confirm ? setAsking(true) : run());
  return html`<span class="action">
    ${
      asking
        ? html`<span
            class="confirm"
            role="group"
            aria-label=${confirm}
            onKeyDown=${(/** @type {KeyboardEvent} */ event) => event.key === 'Escape' && dismiss()}
          >
            <span class="confirm-question">${confirm}</span>${' '}
            <button type="button" class=${kind} onClick=${run}>${yes}</button>${' '}
            <button type="button" class="secondary" ref=${noButton} onClick=${dismiss}>No</button>
          </span>`
        : html`<button
            type="button"
            class=${kind}
            ref=${trigger}
            disabled=${busy}
            aria-label=${label}
            onClick=${click}
          >
            ${busy ? 'Working…' : children}
          </button>`
    }
    ${error && html`<span class="error-note" role="alert">${error.message}</span>`}
  </span>`;
}
