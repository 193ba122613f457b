// OAuth test helpers: a minimal browser (cookie jar, no redirects followed) that reads and posts
// the consent page's HTML form as a person's browser would, and app registration over the
// control channel (fast: no CLI process per app).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestDaemon } from './daemon.js';

export interface Page {
  status: number;
  headers: Headers;
  text: string;
  /** The Location of a redirect, when there is one. */
  location: URL | undefined;
}

export class Browser {
  readonly cookies = new Map<string, string>();

  async get(url: string | URL, headers: Record<string, string> = {}): Promise<Page> {
    return this.send(url, { method: 'GET', headers });
  }

  async post(
    url: string | URL,
    form: Record<string, string>,
    headers: Record<string, string> = {},
  ): Promise<Page> {
    return this.send(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(form).toString(),
    });
  }

  private async send(
    url: string | URL,
    init: { method: string; headers: Record<string, string>; body?: string },
  ): Promise<Page> {
    const headers = { ...init.headers };
    if (this.cookies.size > 0 && !('cookie' in headers)) {
      headers.cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    }
    const response = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      this.cookies.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1).trim());
    }
    const location = response.headers.get('location');
    return {
      status: response.status,
      headers: response.headers,
      text: await response.text(),
      location: location ? new URL(location, url) : undefined,
    };
  }
}

function unescapeHtml(text: string): string {
  return text
    .replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code)))
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

export interface ConsentForm {
  action: string;
  /** The hidden fields, as the page sent them. */
  fields: Record<string, string>;
  /** The workspace picker's options and the selected one. */
  workspaces: string[];
  selected: string | undefined;
  /** The values of the submit buttons named "decision". */
  decisions: string[];
}

/** Reads the consent page's form like a browser would. */
export function parseConsentForm(html: string): ConsentForm {
  const action = /<form[^>]*action="([^"]*)"/.exec(html)?.[1];
  if (action === undefined) throw new Error(`no form on the page:\n${html}`);
  const fields: Record<string, string> = {};
  for (const match of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields[match[1]!] = unescapeHtml(match[2]!);
  }
  const workspaces: string[] = [];
  let selected: string | undefined;
  for (const match of html.matchAll(/<option value="([^"]+)"( selected)?>/g)) {
    workspaces.push(unescapeHtml(match[1]!));
    if (match[2]) selected = unescapeHtml(match[1]!);
  }
  const decisions = [...html.matchAll(/<button[^>]*name="decision" value="([^"]+)"/g)].map(
    (match) => match[1]!,
  );
  return { action: unescapeHtml(action), fields, workspaces, selected, decisions };
}

/**
 * Opens the authorization URL, then submits the consent form (approve or deny) from the page's
 * own origin with the page's cookie. Returns the redirect back to the app.
 */
export async function consent(
  daemon: TestDaemon,
  authorizationUrl: URL,
  options: { decision?: 'approve' | 'deny'; workspaceId?: string; browser?: Browser } = {},
): Promise<URL> {
  const browser = options.browser ?? new Browser();
  const page = await browser.get(authorizationUrl);
  if (page.status !== 200) throw new Error(`consent page: ${page.status} ${page.text}`);
  const form = parseConsentForm(page.text);
  const answer = await browser.post(
    new URL(form.action, daemon.url),
    {
      ...form.fields,
      workspace_id: options.workspaceId ?? form.selected ?? form.workspaces[0]!,
      decision: options.decision ?? 'approve',
    },
    { origin: daemon.url },
  );
  if (answer.status !== 302 || !answer.location) {
    throw new Error(`consent submission: ${answer.status} ${answer.text}`);
  }
  return answer.location;
}

/** A control-channel call, as the CLI makes it. */
export async function control<T = any>(
  daemon: TestDaemon,
  procedure: string,
  input?: unknown,
  kind: 'query' | 'mutation' = 'mutation',
): Promise<T> {
  const token = readFileSync(join(daemon.dataDir, 'control-token'), 'utf8').trim();
  const url = new URL(`${daemon.url}/trpc/${procedure}`);
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  let response: Response;
  if (kind === 'query') {
    if (input !== undefined) url.searchParams.set('input', JSON.stringify(input));
    response = await fetch(url, { headers });
  } else {
    response = await fetch(url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(input ?? {}),
    });
  }
  const body = (await response.json()) as { result?: { data: T }; error?: unknown };
  if (!body.result) throw new Error(`${procedure}: ${JSON.stringify(body.error)}`);
  return body.result.data;
}

export interface RegisteredApp {
  client_id: string;
  client_secret: string | null;
  redirect_uris: string[];
  scopes: string[];
  workspace_id: string;
}

export function createApp(
  daemon: TestDaemon,
  input: {
    name?: string;
    redirect_uris?: string[];
    scopes: string[];
    public?: boolean;
    workspace_id?: string;
  },
): Promise<RegisteredApp> {
  return control<RegisteredApp>(daemon, 'oauth.apps.create', {
    name: input.name ?? 'Test integration',
    redirect_uris: input.redirect_uris ?? ['http://localhost:3000/callback'],
    scopes: input.scopes,
    ...(input.public ? { public: true } : {}),
    ...(input.workspace_id ? { workspace_id: input.workspace_id } : {}),
  });
}

/** A form POST to the daemon (token and revoke endpoints). */
export async function postForm(
  daemon: TestDaemon,
  path: string,
  form: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; body: any; text: string }> {
  const response = await fetch(`${daemon.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, body, text };
}

export function basic(clientId: string, secret: string): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}` };
}
