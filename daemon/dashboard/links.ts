// Where a login link may send the browser once the session is made: a page of this dashboard
// and nothing else. The `next` of a login link is checked here twice (when `svc open` or
// `svc dashboard` mints the link, and again when /ui/login redirects), so that no link, even a
// hand-edited one, turns the dashboard into an open redirect.

/** /ui, or /ui/<segments> with an optional query of plain characters. */
const PAGE_PATH = /^\/ui(?:\/[A-Za-z0-9_.~-]+)*\/?(?:\?[A-Za-z0-9_.~%=&+-]*)?$/;
/** Paths under /ui that are not pages: landing there makes no sense or acts. */
const NOT_PAGES = new Set(['login', 'logout', 'api', 'assets']);

/**
 * The dashboard page `next` names, exactly as given, or undefined when it is anything else: an
 * absolute or protocol-relative URL, a path outside /ui, dot segments, backslashes, encoded
 * slashes, the login or API routes.
 */
export function landingPath(next: unknown): string | undefined {
  if (typeof next !== 'string' || next.length > 500 || !PAGE_PATH.test(next)) return undefined;
  const [path] = next.split('?') as [string];
  const segments = path.split('/').slice(2);
  if (segments.some((segment) => /^\.+$/.test(segment))) return undefined;
  if (NOT_PAGES.has(segments[0] ?? '')) return undefined;
  if (/%2f|%5c|%2e/i.test(next)) return undefined;
  // The browser must resolve it to itself on our origin: nothing normalised away.
  const resolved = new URL(next, 'http://dashboard.invalid');
  if (resolved.origin !== 'http://dashboard.invalid') return undefined;
  if (resolved.pathname + resolved.search !== next.replace(/\?$/, '')) return undefined;
  return next;
}

/** The ids that have a page of their own, by prefix (the search box and `svc open`). */
export const FINDABLE_PREFIXES = ['wex_', 'exec_', 'del_', 'hook_', 'agt_', 'wfl_'] as const;

const FINDABLE_ID = new RegExp(`^(?:${FINDABLE_PREFIXES.join('|')})[A-Za-z0-9]{1,60}$`);

/**
 * The command that brings the user back to a page, named on the login-needed page. Only a plain
 * id goes into it: the path is the visitor's, and a person may paste the command in a shell.
 */
export function reopenCommand(path: string): string {
  const id = path
    .split(/[/?&=]/)
    .reverse()
    .find((part) => FINDABLE_ID.test(part));
  return id ? `svc open ${id}` : 'svc dashboard';
}
