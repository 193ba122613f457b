// The OAuth negative matrix against the real daemon, one case per test. Every case ends with no
// usable token: the answer carries none, and where a code or token was at stake, it is dead.
import test, { type ExecutionContext } from 'ava';
import { createHash, randomBytes } from 'node:crypto';
import { startDaemon, type TestDaemon } from '../helpers/daemon.js';
import {
  Browser,
  basic,
  consent,
  createApp,
  parseConsentForm,
  postForm,
  type RegisteredApp,
} from '../helpers/oauth.js';

let daemon: TestDaemon;
let defaultWs: string;
const REDIRECT = 'http://localhost:3000/callback';

test.before(async () => {
  daemon = await startDaemon();
  defaultWs = (await daemon.operator()).workspaceId;
});

test.after.always(async () => {
  await daemon?.stop();
});

function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

function authorizationUrl(
  app: RegisteredApp,
  params: Record<string, string | undefined> = {},
): URL {
  const url = new URL(`${daemon.url}/oauth/authorize`);
  const all: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: app.client_id,
    redirect_uri: REDIRECT,
    scope: app.scopes.join(' '),
    state: 'st4te',
    ...params,
  };
  for (const [name, value] of Object.entries(all)) {
    if (value !== undefined) url.searchParams.set(name, value);
  }
  return url;
}

/** Runs the consent step and returns the code (with the PKCE verifier when one was used). */
async function getCode(
  app: RegisteredApp,
  options: { pkce?: boolean; scope?: string } = {},
): Promise<{ code: string; verifier: string | undefined }> {
  const pair = options.pkce === false ? undefined : pkcePair();
  const back = await consent(
    daemon,
    authorizationUrl(app, {
      ...(options.scope ? { scope: options.scope } : {}),
      ...(pair ? { code_challenge: pair.challenge, code_challenge_method: 'S256' } : {}),
    }),
  );
  const code = back.searchParams.get('code');
  if (!code) throw new Error(`no code: ${back.href}`);
  return { code, verifier: pair?.verifier };
}

function exchange(
  app: RegisteredApp,
  code: string,
  extra: Record<string, string | undefined> = {},
  headers = basic(app.client_id, app.client_secret ?? ''),
) {
  const form: Record<string, string> = {};
  for (const [name, value] of Object.entries({
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT,
    ...extra,
  }))
    if (value !== undefined) form[name] = value;
  return postForm(daemon, '/v1/oauth/token', form, headers);
}

function refresh(app: RegisteredApp, refreshToken: string, extra: Record<string, string> = {}) {
  return postForm(
    daemon,
    '/v1/oauth/token',
    { grant_type: 'refresh_token', refresh_token: refreshToken, ...extra },
    basic(app.client_id, app.client_secret ?? ''),
  );
}

type Answer = Awaited<ReturnType<typeof postForm>>;

function assertOAuthError(t: ExecutionContext, answer: Answer, status: number, error: string) {
  t.is(answer.status, status, answer.text);
  t.is(answer.body?.error, error, answer.text);
  t.is(typeof answer.body?.error_description, 'string');
  t.is(answer.body?.access_token, undefined, 'no token is issued');
  t.is(answer.body?.data, undefined);
  t.is(answer.headers.get('cache-control'), 'no-store');
}

async function assertTokenDead(t: ExecutionContext, accessToken: string) {
  const me = await daemon.request('/v1/auth/me', { key: accessToken });
  t.is(me.status, 401, me.text);
  t.is(me.body.error.code, 'invalid_token');
}

/** A working set of tokens for an app, through the whole flow. */
async function tokensFor(app: RegisteredApp) {
  const { code, verifier } = await getCode(app);
  const answer = await exchange(app, code, { code_verifier: verifier });
  if (answer.status !== 200) throw new Error(`exchange failed: ${answer.text}`);
  return answer.body as { access_token: string; refresh_token: string; scope: string };
}

// ---- authorization endpoint ----

test('unknown client: a 400 HTML page, never a redirect', async (t) => {
  const app = await createApp(daemon, { scopes: ['agents:read'] });
  const page = await new Browser().get(authorizationUrl({ ...app, client_id: 'app_nope' }));
  t.is(page.status, 400);
  t.is(page.location, undefined);
  t.regex(page.headers.get('content-type')!, /^text\/html/);
  t.true(page.text.includes('app_nope'));
  t.false(page.text.includes('<form'), 'no consent form');
});

test('unregistered redirect URI: a 400 HTML page, never a redirect', async (t) => {
  const app = await createApp(daemon, { scopes: ['agents:read'] });
  for (const uri of [
    'http://evil.example/callback',
    `${REDIRECT}/extra`,
    `${REDIRECT}?next=1`,
    'http://localhost:3001/callback',
    REDIRECT.toUpperCase(),
  ]) {
    const page = await new Browser().get(authorizationUrl(app, { redirect_uri: uri }));
    t.is(page.status, 400, uri);
    t.is(page.location, undefined, uri);
    t.false(page.text.includes('<form'));
  }
  const none = await new Browser().get(authorizationUrl(app, { redirect_uri: undefined }));
  t.is(none.status, 400);
  t.is(none.location, undefined);
});

test('scope escalation at authorize: redirect with error=invalid_scope and the state', async (t) => {
  const app = await createApp(daemon, { scopes: ['agents:read'] });
  for (const scope of ['agents:read agents:write', 'admin', 'agents:fly']) {
    const page = await new Browser().get(authorizationUrl(app, { scope }));
    t.is(page.status, 302, scope);
    t.is(page.location!.origin + page.location!.pathname, REDIRECT);
    t.is(page.location!.searchParams.get('error'), 'invalid_scope');
    t.is(page.location!.searchParams.get('state'), 'st4te');
    t.is(page.location!.searchParams.get('code'), null);
  }
});

test('unsupported response_type: redirect with error=unsupported_response_type', async (t) => {
  const app = await createApp(daemon, { scopes: ['agents:read'] });
  const page = await new Browser().get(authorizationUrl(app, { response_type: 'token' }));
  t.is(page.status, 302);
  t.is(page.location!.searchParams.get('error'), 'unsupported_response_type');
  t.is(page.location!.searchParams.get('state'), 'st4te');
  t.is(page.location!.searchParams.get('code'), null);
});

test('public client without PKCE: refused at authorize (invalid_request), no code', async (t) => {
  const app = await createApp(daemon, { scopes: ['agents:read'], public: true });
  const page = await new Browser().get(authorizationUrl(app));
  t.is(page.status, 302);
  t.is(page.location!.searchParams.get('error'), 'invalid_request');
  t.regex(page.location!.searchParams.get('error_description')!, /PKCE/);
  t.is(page.location!.searchParams.get('code'), null);
  // plain is not accepted either.
  const plain = await new Browser().get(
    authorizationUrl(app, { code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' }),
  );
  t.is(plain.location!.searchParams.get('error'), 'invalid_request');
});

test('public client at the token endpoint without a verifier: no token', async (t) => {
  const app = await createApp(daemon, { scopes: ['agents:read'], public: true });
  const { code } = await getCode(app);
  const answer = await exchange(app, code, { client_id: app.client_id }, {});
  t.true(answer.status === 400 || answer.status === 401, answer.text);
  t.is(answer.body.access_token, undefined);
  t.true(['invalid_grant', 'invalid_client', 'invalid_request'].includes(answer.body.error));
});

// ---- forged consent submissions ----

async function consentForm(app: RegisteredApp) {
  const browser = new Browser();
  const page = await browser.get(authorizationUrl(app));
  return { browser, form: parseConsentForm(page.text) };
}

/** Submits the consent form with decision approve, the fields and headers as given. */
function approve(
  browser: Browser,
  fields: Record<string, string>,
  headers: Record<string, string>,
) {
  return browser.post(`${daemon.url}/oauth/authorize`, { ...fields, decision: 'approve' }, headers);
}

function assertRefused(t: ExecutionContext, answer: { status: number; location?: URL }) {
  t.is(answer.status, 403);
  t.is(answer.location, undefined, 'no redirect, so no code');
}

test('forged consent: no cookie -> 403, no code', async (t) => {
  const app = await createApp(daemon, { scopes: ['agents:read'] });
  const { form } = await consentForm(app);
  const answer = await new Browser().post(
    `${daemon.url}/oauth/authorize`,
    { ...form.fields, workspace_id: defaultWs, decision: 'approve' },
    { origin: daemon.url },
  );
  assertRefused(t, answer);
  t.regex(answer.text, /cookie/i);
});

test('forged consent: wrong CSRF token -> 403, no code', async (t) => {
  const app = await createApp(daemon, { scopes: ['agents:read'] });
  const { browser, form } = await consentForm(app);
  const answer = await approve(
    browser,
    { ...form.fields, csrf_token: 'x'.repeat(43), workspace_id: defaultWs },
    { origin: daemon.url },
  );
  assertRefused(t, answer);
  // The token of one browser's cookie does not work with another's.
  const other = await consentForm(app);
  const crossed = await approve(
    browser,
    { ...other.form.fields, workspace_id: defaultWs },
    { origin: daemon.url },
  );
  assertRefused(t, crossed);
  const missing = await approve(
    browser,
    { ...form.fields, csrf_token: '', workspace_id: defaultWs },
    { origin: daemon.url },
  );
  assertRefused(t, missing);
});

test('forged consent: foreign Origin -> 403, no code', async (t) => {
  const app = await createApp(daemon, { scopes: ['agents:read'] });
  const { browser, form } = await consentForm(app);
  const answer = await approve(
    browser,
    { ...form.fields, workspace_id: defaultWs },
    { origin: 'http://evil.example' },
  );
  assertRefused(t, answer);
  t.regex(answer.text, /another site/);
  const crossSite = await approve(
    browser,
    { ...form.fields, workspace_id: defaultWs },
    { 'sec-fetch-site': 'cross-site' },
  );
  assertRefused(t, crossSite);
});

test('consent for a workspace that does not exist: 400, no code', async (t) => {
  const app = await createApp(daemon, { scopes: ['agents:read'] });
  const { browser, form } = await consentForm(app);
  const answer = await approve(
    browser,
    { ...form.fields, workspace_id: 'ws_nope' },
    { origin: daemon.url },
  );
  t.is(answer.status, 400);
  t.is(answer.location, undefined);
});

// ---- token endpoint: codes ----

test('missing PKCE verifier: invalid_grant, and the code is spent', async (t) => {
  const app = await createApp(daemon, { scopes: ['agents:read'] });
  const { code, verifier } = await getCode(app);
  assertOAuthError(t, await exchange(app, code), 400, 'invalid_grant');
  assertOAuthError(t, await exchange(app, code, { code_verifier: verifier }), 400, 'invalid_grant');
});

test('wrong PKCE verifier: invalid_grant, and the code is spent', async (t) => {
  const app = await createApp(daemon, { scopes: ['agents:read'] });
  const { code, verifier } = await getCode(app);
  assertOAuthError(
    t,
    await exchange(app, code, { code_verifier: pkcePair().verifier }),
    400,
    'invalid_grant',
  );
  assertOAuthError(t, await exchange(app, code, { code_verifier: verifier }), 400, 'invalid_grant');
});

test('a verifier for a code that had no challenge: invalid_grant', async (t) => {
  const app = await createApp(daemon, { scopes: ['agents:read'] });
  const { code } = await getCode(app, { pkce: false });
  assertOAuthError(
    t,
    await exchange(app, code, { code_verifier: pkcePair().verifier }),
    400,
    'invalid_grant',
  );
});

test('altered redirect URI at the exchange: invalid_grant, and the code is spent', async (t) => {
  const app = await createApp(daemon, {
    scopes: ['agents:read'],
    redirect_uris: [REDIRECT, 'http://localhost:3000/other'],
  });
  const { code, verifier } = await getCode(app);
  assertOAuthError(
    t,
    await exchange(app, code, {
      code_verifier: verifier,
      redirect_uri: 'http://localhost:3000/other',
    }),
    400,
    'invalid_grant',
  );
  assertOAuthError(t, await exchange(app, code, { code_verifier: verifier }), 400, 'invalid_grant');
});

test('code reuse: invalid_grant, and the tokens issued from the code are revoked', async (t) => {
  const app = await createApp(daemon, { scopes: ['agents:read'] });
  const { code, verifier } = await getCode(app);
  const first = await exchange(app, code, { code_verifier: verifier });
  t.is(first.status, 200, first.text);
  t.is((await daemon.request('/v1/auth/me', { key: first.body.access_token })).status, 200);
  const second = await exchange(app, code, { code_verifier: verifier });
  assertOAuthError(t, second, 400, 'invalid_grant');
  t.regex(second.body.error_description, /used already/);
  await assertTokenDead(t, first.body.access_token);
  assertOAuthError(t, await refresh(app, first.body.refresh_token), 400, 'invalid_grant');
});

test('the same code exchanged twice at once: reuse, so no token that works', async (t) => {
  const app = await createApp(daemon, { scopes: ['agents:read'] });
  const { code, verifier } = await getCode(app);
  const answers = await Promise.all([
    exchange(app, code, { code_verifier: verifier }),
    exchange(app, code, { code_verifier: verifier }),
  ]);
  t.true(answers.filter((answer) => answer.status === 200).length <= 1);
  for (const answer of answers) {
    if (answer.status === 200) await assertTokenDead(t, answer.body.access_token);
    else assertOAuthError(t, answer, 400, 'invalid_grant');
  }
});

test('an exchange without redirect_uri: invalid_request, and the code is spent', async (t) => {
  const app = await createApp(daemon, { scopes: ['agents:read'] });
  const { code, verifier } = await getCode(app);
  assertOAuthError(
    t,
    await exchange(app, code, { code_verifier: verifier, redirect_uri: undefined }),
    400,
    'invalid_request',
  );
  assertOAuthError(t, await exchange(app, code, { code_verifier: verifier }), 400, 'invalid_grant');
});

test('a code issued to another client: invalid_grant', async (t) => {
  const app = await createApp(daemon, { scopes: ['agents:read'] });
  const thief = await createApp(daemon, { scopes: ['agents:read'] });
  const { code, verifier } = await getCode(app);
  assertOAuthError(
    t,
    await exchange(thief, code, { code_verifier: verifier }),
    400,
    'invalid_grant',
  );
});

test('an unknown code: invalid_grant', async (t) => {
  const app = await createApp(daemon, { scopes: ['agents:read'] });
  assertOAuthError(
    t,
    await exchange(app, `svc_ac_${'A'.repeat(40)}`, { code_verifier: pkcePair().verifier }),
    400,
    'invalid_grant',
  );
});

test('wrong client secret: 401 invalid_client with WWW-Authenticate (Basic and post)', async (t) => {
  const app = await createApp(daemon, { scopes: ['agents:read'] });
  const { code, verifier } = await getCode(app);
  const viaBasic = await exchange(
    app,
    code,
    { code_verifier: verifier },
    basic(app.client_id, 'svc_cs_wrong'),
  );
  assertOAuthError(t, viaBasic, 401, 'invalid_client');
  t.regex(viaBasic.headers.get('www-authenticate')!, /^Basic/);
  const viaPost = await exchange(
    app,
    code,
    { code_verifier: verifier, client_id: app.client_id, client_secret: 'svc_cs_wrong' },
    {},
  );
  assertOAuthError(t, viaPost, 401, 'invalid_client');
  t.truthy(viaPost.headers.get('www-authenticate'));
  // A confidential app that sends no secret at all is not authenticated either.
  const noSecret = await exchange(
    app,
    code,
    { code_verifier: verifier, client_id: app.client_id },
    {},
  );
  assertOAuthError(t, noSecret, 401, 'invalid_client');
  // The code was never touched: the right secret still gets the tokens.
  const right = await exchange(app, code, { code_verifier: verifier });
  t.is(right.status, 200, right.text);
});

test('unknown client at the token endpoint: 401 invalid_client', async (t) => {
  const answer = await postForm(
    daemon,
    '/v1/oauth/token',
    { grant_type: 'authorization_code', code: 'x', redirect_uri: REDIRECT },
    basic('app_nope', 'svc_cs_nope'),
  );
  assertOAuthError(t, answer, 401, 'invalid_client');
});

test('unsupported grant types and malformed requests: 400 in RFC 6749 form', async (t) => {
  const app = await createApp(daemon, { scopes: ['agents:read'] });
  const auth = basic(app.client_id, app.client_secret!);
  for (const grant of ['password', 'client_credentials', 'implicit']) {
    assertOAuthError(
      t,
      await postForm(daemon, '/v1/oauth/token', { grant_type: grant }, auth),
      400,
      'unsupported_grant_type',
    );
  }
  assertOAuthError(t, await postForm(daemon, '/v1/oauth/token', {}, auth), 400, 'invalid_request');
  const json = await fetch(`${daemon.baseUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...auth },
    body: JSON.stringify({ grant_type: 'authorization_code' }),
  });
  t.is(json.status, 400);
  t.is(((await json.json()) as any).error, 'invalid_request');
  const repeated = await fetch(`${daemon.baseUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...auth },
    body: 'grant_type=refresh_token&refresh_token=a&refresh_token=b',
  });
  t.is(((await repeated.json()) as any).error, 'invalid_request');
  const missingCode = await postForm(
    daemon,
    '/v1/oauth/token',
    { grant_type: 'authorization_code', redirect_uri: REDIRECT },
    auth,
  );
  assertOAuthError(t, missingCode, 400, 'invalid_request');
});

// ---- token endpoint: refresh ----

test('refresh reuse: invalid_grant, and the whole grant is revoked', async (t) => {
  const app = await createApp(daemon, { scopes: ['agents:read'] });
  const first = await tokensFor(app);
  const second = await refresh(app, first.refresh_token);
  t.is(second.status, 200, second.text);
  const reuse = await refresh(app, first.refresh_token);
  assertOAuthError(t, reuse, 400, 'invalid_grant');
  t.regex(reuse.body.error_description, /reuse/);
  // Everything of the grant is gone: the newest access and refresh tokens too.
  await assertTokenDead(t, second.body.access_token);
  await assertTokenDead(t, first.access_token);
  assertOAuthError(t, await refresh(app, second.body.refresh_token), 400, 'invalid_grant');
});

test('the same refresh token used twice at once: the grant is revoked', async (t) => {
  const app = await createApp(daemon, { scopes: ['agents:read'] });
  const first = await tokensFor(app);
  const answers = await Promise.all([
    refresh(app, first.refresh_token),
    refresh(app, first.refresh_token),
  ]);
  t.true(answers.filter((answer) => answer.status === 200).length <= 1);
  for (const answer of answers) {
    if (answer.status === 200) await assertTokenDead(t, answer.body.access_token);
    else assertOAuthError(t, answer, 400, 'invalid_grant');
  }
  await assertTokenDead(t, first.access_token);
});

test('scope escalation at refresh: invalid_scope, no token', async (t) => {
  const app = await createApp(daemon, { scopes: ['agents:read', 'agents:write'] });
  const { code, verifier } = await getCode(app, { scope: 'agents:read' });
  const first = await exchange(app, code, { code_verifier: verifier });
  t.is(first.body.scope, 'agents:read');
  for (const scope of ['agents:read agents:write', 'admin']) {
    assertOAuthError(
      t,
      await refresh(app, first.body.refresh_token, { scope }),
      400,
      'invalid_scope',
    );
  }
  // A refused request does not spend the refresh token (its retry is no reuse).
  const retry = await refresh(app, first.body.refresh_token);
  t.is(retry.status, 200, retry.text);
  t.is(retry.body.scope, 'agents:read');
});

test('a refresh token presented by another client: invalid_grant', async (t) => {
  const app = await createApp(daemon, { scopes: ['agents:read'] });
  const other = await createApp(daemon, { scopes: ['agents:read'] });
  const tokens = await tokensFor(app);
  assertOAuthError(t, await refresh(other, tokens.refresh_token), 400, 'invalid_grant');
});

test('an access token is not a refresh token: invalid_grant', async (t) => {
  const app = await createApp(daemon, { scopes: ['agents:read'] });
  const tokens = await tokensFor(app);
  assertOAuthError(t, await refresh(app, tokens.access_token), 400, 'invalid_grant');
});

// ---- tokens as credentials ----

test('token used on another tenant: 403 tenant_forbidden', async (t) => {
  const otherWs = await daemon.createWorkspace('Other tenant');
  const app = await createApp(daemon, { scopes: ['agents:read'] });
  const tokens = await tokensFor(app);
  const answer = await daemon.request('/v1/agents', { key: tokens.access_token, tenant: otherWs });
  t.is(answer.status, 403, answer.text);
  t.is(answer.body.error.code, 'tenant_forbidden');
  const unknown = await daemon.request('/v1/agents', {
    key: tokens.access_token,
    tenant: 'ws_unknown',
  });
  t.is(unknown.body.error.code, 'tenant_forbidden');
  const own = await daemon.request('/v1/agents', { key: tokens.access_token, tenant: defaultWs });
  t.is(own.status, 200);
});

test('a scope the token lacks: 403 insufficient_scope', async (t) => {
  const app = await createApp(daemon, { scopes: ['agents:read'] });
  const tokens = await tokensFor(app);
  const answer = await daemon.request('/v1/webhooks', {
    key: tokens.access_token,
    tenant: defaultWs,
  });
  t.is(answer.status, 403);
  t.is(answer.body.error.code, 'insufficient_scope');
});

test('revoked token: 401 invalid_token; revoking an unknown token is 200', async (t) => {
  const app = await createApp(daemon, { scopes: ['agents:read'] });
  const tokens = await tokensFor(app);
  const auth = basic(app.client_id, app.client_secret!);
  const revoked = await postForm(
    daemon,
    '/v1/oauth/revoke',
    { token: tokens.access_token, token_type_hint: 'access_token' },
    auth,
  );
  t.is(revoked.status, 200, revoked.text);
  await assertTokenDead(t, tokens.access_token);
  const unknown = await postForm(daemon, '/v1/oauth/revoke', { token: 'svc_at_unknown' }, auth);
  t.is(unknown.status, 200);
  const badClient = await postForm(
    daemon,
    '/v1/oauth/revoke',
    { token: tokens.refresh_token },
    basic(app.client_id, 'svc_cs_wrong'),
  );
  assertOAuthError(t, badClient, 401, 'invalid_client');
  // Another client cannot revoke this client's tokens (200, but nothing happens).
  const other = await createApp(daemon, { scopes: ['agents:read'] });
  const foreign = await postForm(
    daemon,
    '/v1/oauth/revoke',
    { token: tokens.refresh_token },
    basic(other.client_id, other.client_secret!),
  );
  t.is(foreign.status, 200);
  t.is((await refresh(app, tokens.refresh_token)).status, 200);
});

test('tokens are not accepted in the URL or in other forms', async (t) => {
  const app = await createApp(daemon, { scopes: ['agents:read'] });
  const tokens = await tokensFor(app);
  const basicToken = await daemon.request('/v1/auth/me', {
    headers: {
      authorization: `Basic ${Buffer.from(`${tokens.access_token}:`).toString('base64')}`,
    },
  });
  t.is(basicToken.status, 401);
  const refreshAsBearer = await daemon.request('/v1/auth/me', { key: tokens.refresh_token });
  t.is(refreshAsBearer.status, 401);
  t.is(refreshAsBearer.body.error.code, 'invalid_token');
});

// ---- time (serial: they move the daemon clock) ----

test.serial('expired code (svc clock advance 11m): invalid_grant', async (t) => {
  const app = await createApp(daemon, { scopes: ['agents:read'] });
  const { code, verifier } = await getCode(app);
  // The clock over the control channel, as `svc clock advance` moves it (tested in cli-operator).
  await daemon.advance('11m');
  const answer = await exchange(app, code, { code_verifier: verifier });
  assertOAuthError(t, answer, 400, 'invalid_grant');
  t.regex(answer.body.error_description, /expired/);
});

test.serial(
  'expired access token: 401 invalid_token with expires_at; refresh still works',
  async (t) => {
    const app = await createApp(daemon, { scopes: ['agents:read'] });
    const tokens = await tokensFor(app);
    await daemon.advance('61m');
    const me = await daemon.request('/v1/auth/me', { key: tokens.access_token });
    t.is(me.status, 401);
    t.is(me.body.error.code, 'invalid_token');
    t.regex(me.body.error.expires_at, /^\d{4}-\d\d-\d\dT/);
    t.true(Date.parse(me.body.error.expires_at) < Date.parse(me.body.meta.timestamp));
    const renewed = await refresh(app, tokens.refresh_token);
    t.is(renewed.status, 200, renewed.text);
    t.is((await daemon.request('/v1/auth/me', { key: renewed.body.access_token })).status, 200);
  },
);

test.serial(
  'rate limits: token 20/minute and authorize 10/minute per client (free tier)',
  async (t) => {
    const freeWs = await daemon.createWorkspace('Free tenant', 'free');
    const app = await createApp(daemon, { scopes: ['agents:read'], workspace_id: freeWs });
    // Start on a fresh window of the daemon clock.
    await daemon.advance('1m');
    const auth = basic(app.client_id, app.client_secret!);
    let last: Answer | undefined;
    for (let i = 0; i < 21; i++) {
      last = await postForm(
        daemon,
        '/v1/oauth/token',
        { grant_type: 'refresh_token', refresh_token: `svc_rt_unknown${i}` },
        auth,
      );
      if (i < 20) t.is(last.body.error, 'invalid_grant', `request ${i + 1}`);
    }
    assertOAuthError(t, last!, 429, 'rate_limit_exceeded');
    t.truthy(last!.headers.get('retry-after'));
    t.is(last!.headers.get('x-ratelimit-limit'), '20');

    const browser = new Browser();
    let page;
    for (let i = 0; i < 11; i++) {
      page = await browser.get(authorizationUrl(app, pkceParams()));
      if (i < 10) t.is(page.status, 200, `authorize ${i + 1}`);
    }
    t.is(page!.status, 429);
    t.truthy(page!.headers.get('retry-after'));
    t.is(page!.headers.get('x-ratelimit-limit'), '10');
    // The next window lets it through again.
    await daemon.advance('1m');
    t.is((await browser.get(authorizationUrl(app, pkceParams()))).status, 200);
  },
);

function pkceParams() {
  const { challenge } = pkcePair();
  return { code_challenge: challenge, code_challenge_method: 'S256' };
}
