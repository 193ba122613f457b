// The dashboard's page: the session (CSRF token, workspaces), the workspace switcher, the
// navigation and the router. Every page has its own URL (/ui/runs?ws=...), so a page can be
// pasted into another tab of the same browser.
import {
  Link,
  connectLive,
  get,
  html,
  navigate,
  onValue,
  render,
  session,
  useEffect,
  useLayoutEffect,
  useRef,
  useState,
} from './lib.js';
import { Overview } from './pages/overview.js';
import { Runs } from './pages/runs.js';
import { Run } from './pages/run.js';
import { Workflows } from './pages/workflows.js';
import { Workflow } from './pages/workflow.js';
import { Agent } from './pages/agent.js';
import { Agents } from './pages/agents.js';
import { Execution } from './pages/execution.js';
import { Approvals } from './pages/approvals.js';
import { Webhooks } from './pages/webhooks.js';
import { Events } from './pages/events.js';
import { Clock } from './pages/clock.js';
import { Keys } from './pages/keys.js';
import { Faults } from './pages/faults.js';
import { Secrets } from './pages/secrets.js';
import { Templates } from './pages/templates.js';
import { SearchBox } from './parts/search-box.js';
import { useHeadingFocus } from './parts/heading-focus.js';

const PAGES = [
  { path: '', title: 'Overview', view: Overview },
  { path: '/workflows', title: 'Workflows', view: Workflows },
  { path: '/agents', title: 'Agents', view: Agents },
  { path: '/runs', title: 'Workflow runs', view: Runs },
  { path: '/approvals', title: 'Approvals', view: Approvals },
  { path: '/webhooks', title: 'Webhooks & deliveries', view: Webhooks },
  { path: '/events', title: 'Events', view: Events },
  { path: '/clock', title: 'Clock', view: Clock },
  { path: '/keys', title: 'API keys', view: Keys },
  { path: '/secrets', title: 'Secrets', view: Secrets },
  { path: '/faults', title: 'Fault rules', view: Faults },
  { path: '/templates', title: 'Templates', view: Templates },
];
/** @param {string} path */
const page = (path) => PAGES.find((item) => item.path === path);
const ID = '([A-Za-z0-9_]+)';

/**
 * Pages of one object: the path pattern, the page, its title, the navigation item it is under.
 * @type {[string, Function, string, string, (m: RegExpExecArray) => Record<string, string>][]}
 */
const OBJECT_PAGES = [
  [`^/runs/${ID}$`, Run, 'Run', '/runs', (m) => ({ id: m[1] })],
  [`^/workflows/${ID}$`, Workflow, 'Workflow', '/workflows', (m) => ({ id: m[1] })],
  [`^/agents/${ID}$`, Agent, 'Agent', '/agents', (m) => ({ id: m[1] })],
  [`^/executions/${ID}$`, Execution, 'Agent execution', '/approvals', (m) => ({ id: m[1] })],
  [`^/webhooks/${ID}$`, Webhooks, 'Webhook', '/webhooks', (m) => ({ webhookId: m[1] })],
  [
    `^/webhooks/${ID}/deliveries/${ID}$`,
    Webhooks,
    'Delivery',
    '/webhooks',
    (m) => ({ webhookId: m[1], deliveryId: m[2] }),
  ],
  [`^/templates/${ID}$`, Templates, 'Template', '/templates', (m) => ({ id: m[1] })],
];

/**
 * Which page a path shows, and its parameters; an unknown path says so.
 * @param {string} pathname
 */
function route(pathname) {
  const path = pathname.replace(/^\/ui/, '').replace(/\/$/, '');
  for (const [pattern, view, title, under, toParams] of OBJECT_PAGES) {
    const match = new RegExp(pattern).exec(path);
    if (match) return { page: { title, view, path: under }, params: toParams(match) };
  }
  const found = page(path);
  if (found) return { page: found, params: {} };
  return { page: { title: 'Not found', view: NotFound, path: null }, params: { path } };
}

/** @param {import('./lib.js').PageProps} props */
function NotFound({ params }) {
  return html`<h1>No such page</h1>
    <p>
      The dashboard has no page at <code>/ui${params.path}</code>. Pick one on the left, or give an
      id to the search box above.
    </p>`;
}

function useLocation() {
  const [location, setLocation] = useState(() => ({ ...window.location }));
  useEffect(() => {
    const update = () => setLocation({ ...window.location });
    window.addEventListener('popstate', update);
    return () => window.removeEventListener('popstate', update);
  }, []);
  return location;
}

/**
 * The side navigation below ~700 px wide (style.css): folded behind the Menu button, open until a
 * page is picked or Escape is pressed (the focus then goes back to the button).
 */
/** @param {{ pathname: string, search: string }} location */
function useMenu(location) {
  const [open, setOpen] = useState(false);
  const button = useRef(/** @type {HTMLButtonElement | null} */ (null));
  // Layout effects, run as the menu opens or a page is picked, before the browser paints or takes
  // the next key: with effects (after the paint), an Escape pressed right after opening found no
  // listener yet and was lost, and the menu stayed open (seen under load).
  useLayoutEffect(() => setOpen(false), [location.pathname, location.search]);
  useLayoutEffect(() => {
    if (!open) return undefined;
    /** @param {KeyboardEvent} event */
    const onKeyDown = (event) => {
      if (event.key !== 'Escape') return;
      setOpen(false);
      button.current?.focus();
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, [open]);
  return { open, button, toggle: () => setOpen(!open) };
}

/** @param {{ info: import('./lib.js').GetAnswer<'/session'> }} props */
function App({ info }) {
  const location = useLocation();
  const query = new URLSearchParams(location.search);
  const wanted = query.get('ws');
  const workspace =
    wanted !== null && info.workspaces.some((ws) => ws.id === wanted)
      ? wanted
      : info.default_workspace_id;
  session.workspace = workspace;
  useEffect(() => connectLive(workspace), [workspace]);
  const { page, params } = route(location.pathname);
  useEffect(() => {
    document.title = `${page.title} · svc dashboard`;
  }, [page]);

  const switchWorkspace = onValue((value) => {
    const next = new URLSearchParams(location.search);
    next.set('ws', value);
    navigate(`${location.pathname}?${next}`);
  });
  const View = page.view;
  const menu = useMenu(location);
  // A filter changes only the query: the focus stays in the filter then.
  useHeadingFocus(workspace + location.pathname);
  // A narrow screen cuts the picker's text: its title still names the whole workspace and id.
  const current = info.workspaces.find((ws) => ws.id === workspace);
  const workspaceTitle = current ? `${current.name} (${current.id})` : workspace;
  return html`
    <a class="skip" href="#main">Skip to content</a>
    <header class="top">
      <button
        type="button"
        class="menu-button secondary"
        aria-controls="side-nav"
        aria-expanded=${menu.open ? 'true' : 'false'}
        ref=${menu.button}
        onClick=${menu.toggle}
      >
        Menu
      </button>
      <div class="brand">svc <span>dashboard</span></div>
      <span class="badge env-${info.environment}">${info.environment}</span>
      <${SearchBox} />
      <label class="switcher">
        <span>Workspace</span>
        <select value=${workspace} title=${workspaceTitle} onChange=${switchWorkspace}>
          ${info.workspaces.map(
            (ws) =>
              html`<option value=${ws.id}>
                ${ws.name} (${ws.id})${ws.default ? ' · default' : ''}
              </option>`,
          )}
        </select>
      </label>
    </header>
    <div class="layout">
      <nav id="side-nav" class=${menu.open ? 'side open' : 'side'} aria-label="Dashboard">
        <ul>
          ${PAGES.map(
            (item) =>
              html`<li>
                <${Link}
                  to=${`/ui${item.path}?ws=${workspace}`}
                  aria-current=${item.path === page.path ? 'page' : undefined}
                  >${item.title}<//
                >
              </li>`,
          )}
        </ul>
        <p class="version">svc ${info.version}</p>
      </nav>
      <main id="main" tabindex="-1">
        <${View} key=${workspace + location.pathname} params=${params} query=${query} />
      </main>
    </div>
  `;
}

async function start() {
  const root = /** @type {HTMLElement} */ (document.getElementById('app'));
  try {
    const info = await get('/session');
    session.csrf = info.csrf_token;
    // The shell's "Loading the dashboard…" is plain HTML, not Preact's: clear it, or it stays.
    root.replaceChildren();
    render(html`<${App} info=${info} />`, root);
  } catch (error) {
    root.replaceChildren();
    render(
      html`<main class="login-needed">
        <h1>The dashboard could not start</h1>
        <p>${/** @type {Error} */ (error).message}</p>
      </main>`,
      root,
    );
  }
}

void start();
