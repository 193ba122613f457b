// The OAuth 2.0 provider end to end with a stock client library (oauth4webapi) against the real
// daemon: discovery, authorization with PKCE, consent through the HTML form with its cookie,
// code exchange, API calls with the token, refresh with rotation, revocation; and the CLI.
import test from 'ava';
import * as oauth from 'oauth4webapi';
import { startDaemon, type TestDaemon } from '../helpers/daemon.js';
import { readLog, waitForLog } from '../helpers/logs.js';
import {
  Browser,
  basic,
  consent,
  control,
  createApp,
  parseConsentForm,
  postForm,
} from '../helpers/oauth.js';

let daemon: TestDaemon;
let as: oauth.AuthorizationServer;
let defaultWs: string;
const insecure = { [oauth.allowInsecureRequests]: true } as const;
const REDIRECT = 'http://localhost:3000/callback';

test.before(async () => {
  daemon = await startDaemon();
  defaultWs = (await daemon.operator()).workspaceId;
  const issuer = new URL(daemon.url);
  as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }),
  );
});

test.after.always(async () => {
  await daemon?.stop();
});

/** Runs the front channel with PKCE and returns the validated callback parameters. */
async function authorize(
  client: oauth.Client,
  scope: string,
  options: { workspaceId?: string; browser?: Browser } = {},
) {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint!);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', client.client_id);
  url.searchParams.set('redirect_uri', REDIRECT);
  url.searchParams.set('scope', scope);
  url.searchParams.set('state', state);
  url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
  url.searchParams.set('code_challenge_method', 'S256');
  const callback = await consent(daemon, url, options);
  t_assertCallback(callback);
  return { params: oauth.validateAuthResponse(as, client, callback, state), verifier };
}

/** The token request of the code flow (RFC 6749 §4.1.3, with the PKCE verifier). */
function codeGrant(
  client: oauth.Client,
  auth: oauth.ClientAuth,
  params: URLSearchParams,
  verifier: string,
) {
  return oauth.authorizationCodeGrantRequest(
    as,
    client,
    auth,
    params,
    REDIRECT,
    verifier,
    insecure,
  );
}

/** The whole code flow (consent, PKCE exchange) for `client`; the validated token answer. */
async function signIn(client: oauth.Client, auth: oauth.ClientAuth, scope: string) {
  const { params, verifier } = await authorize(client, scope);
  const tokens = await oauth.processAuthorizationCodeResponse(
    as,
    client,
    await codeGrant(client, auth, params, verifier),
  );
  return { tokens, code: params.get('code')!, verifier };
}

/** A confidential app with agents:read, signed in once with its secret (HTTP Basic or POST). */
async function signedInApp(authMethod: 'basic' | 'post' = 'basic') {
  const app = await createApp(daemon, { scopes: ['agents:read'] });
  const client: oauth.Client = { client_id: app.client_id };
  const auth =
    authMethod === 'post'
      ? oauth.ClientSecretPost(app.client_secret!)
      : oauth.ClientSecretBasic(app.client_secret!);
  return { app, client, auth, ...(await signIn(client, auth, 'agents:read')) };
}

/** A refresh_token grant posted as a plain form with HTTP Basic: the raw answer, for refusals. */
function refreshByForm(
  app: { client_id: string; client_secret: string | null },
  refreshToken: string,
) {
  return postForm(
    daemon,
    '/v1/oauth/token',
    { grant_type: 'refresh_token', refresh_token: refreshToken },
    basic(app.client_id, app.client_secret!),
  );
}

/** A refresh_token grant (with more parameters when given); the validated token answer. */
async function refresh(
  client: oauth.Client,
  auth: oauth.ClientAuth,
  refreshToken: string,
  more: Record<string, string> = {},
) {
  return oauth.processRefreshTokenResponse(
    as,
    client,
    await oauth.refreshTokenGrantRequest(as, client, auth, refreshToken, {
      ...insecure,
      additionalParameters: more,
    }),
  );
}

/** Revokes a token (RFC 7009) and checks the answer. */
async function revoke(client: oauth.Client, auth: oauth.ClientAuth, token: string) {
  await oauth.processRevocationResponse(
    await oauth.revocationRequest(as, client, auth, token, insecure),
  );
}

function t_assertCallback(callback: URL): void {
  if (`${callback.origin}${callback.pathname}` !== REDIRECT) {
    throw new Error(`redirected to ${callback.href}, not to the registered URI`);
  }
}

test('discovery describes the endpoints, grants, PKCE and client authentication (RFC 8414)', (t) => {
  t.is(as.issuer, daemon.url);
  t.is(as.authorization_endpoint, `${daemon.url}/oauth/authorize`);
  t.is(as.token_endpoint, `${daemon.baseUrl}/oauth/token`);
  t.is(as.revocation_endpoint, `${daemon.baseUrl}/oauth/revoke`);
  t.deepEqual(as.response_types_supported, ['code']);
  t.deepEqual(as.grant_types_supported, ['authorization_code', 'refresh_token']);
  t.deepEqual(as.code_challenge_methods_supported, ['S256']);
  t.deepEqual(as.token_endpoint_auth_methods_supported, [
    'client_secret_basic',
    'client_secret_post',
    'none',
  ]);
  t.true(as.scopes_supported!.includes('agents:read'));
  t.true(as.scopes_supported!.includes('admin'));
});

test('the whole flow with oauth4webapi: consent, PKCE exchange, API calls, refresh rotation, revoke', async (t) => {
  const app = await createApp(daemon, { scopes: ['agents:read', 'webhooks:read'] });
  t.truthy(app.client_secret);
  const client: oauth.Client = { client_id: app.client_id };
  const auth = oauth.ClientSecretBasic(app.client_secret!);

  const { params, verifier } = await authorize(client, 'agents:read webhooks:read');
  const code = params.get('code')!;
  t.regex(code, /^svc_ac_/);
  t.is(params.get('iss'), daemon.url);

  const tokenResponse = await codeGrant(client, auth, params, verifier);
  t.is(tokenResponse.headers.get('cache-control'), 'no-store');
  const tokens = await oauth.processAuthorizationCodeResponse(as, client, tokenResponse);
  t.is(tokens.token_type, 'bearer');
  t.is(tokens.expires_in, 3600);
  t.is(tokens.scope, 'agents:read webhooks:read');
  t.regex(tokens.access_token, /^svc_at_/);
  t.regex(tokens.refresh_token!, /^svc_rt_/);

  // The token is a credential: /auth/me, then a scoped, tenant-scoped route.
  const me = await oauth.protectedResourceRequest(
    tokens.access_token,
    'GET',
    new URL(`${daemon.baseUrl}/auth/me`),
    undefined,
    undefined,
    insecure,
  );
  t.is(me.status, 200);
  const meBody = (await me.json()) as any;
  t.regex(meBody.data.user_id, /^usr_/);
  t.is(meBody.data.workspace_id, defaultWs);
  t.deepEqual(meBody.data.scopes, ['agents:read', 'webhooks:read']);
  t.is(meBody.data.tier, 'enterprise');
  t.is(meBody.data.credential_type, 'oauth');
  const hooks = await daemon.request('/v1/webhooks', {
    key: tokens.access_token,
    tenant: defaultWs,
  });
  t.is(hooks.status, 200, hooks.text);
  const agents = await daemon.request('/v1/agents', {
    key: tokens.access_token,
    tenant: defaultWs,
  });
  t.is(agents.status, 200, agents.text);
  // Each scope grants exactly its row.
  const create = await daemon.callJson(
    'POST',
    '/v1/webhooks',
    { url: 'http://localhost:4000/h', events: ['agent.created'] },
    { key: tokens.access_token, tenant: defaultWs },
  );
  t.is(create.status, 403);
  t.is(create.body.error.code, 'insufficient_scope');

  // Refresh: a new pair; the old refresh token is rotated out.
  const refreshed = await refresh(client, auth, tokens.refresh_token!);
  t.not(refreshed.access_token, tokens.access_token);
  t.not(refreshed.refresh_token, tokens.refresh_token);
  t.is(refreshed.scope, 'agents:read webhooks:read');
  const meAgain = await daemon.request('/v1/auth/me', { key: refreshed.access_token });
  t.is(meAgain.status, 200);

  // A narrower scope on refresh is allowed.
  const narrowed = await refresh(client, auth, refreshed.refresh_token!, { scope: 'agents:read' });
  t.is(narrowed.scope, 'agents:read');
  const narrowMe = await daemon.request('/v1/auth/me', { key: narrowed.access_token });
  t.deepEqual(narrowMe.body.data.scopes, ['agents:read']);

  // Revoke the access token: 401 at once; the refresh token still works.
  await revoke(client, auth, narrowed.access_token);
  const revoked = await daemon.request('/v1/auth/me', { key: narrowed.access_token });
  t.is(revoked.status, 401);
  t.is(revoked.body.error.code, 'invalid_token');
  const after = await refresh(client, auth, narrowed.refresh_token!);
  t.is((await daemon.request('/v1/auth/me', { key: after.access_token })).status, 200);

  // Revoke the refresh token: the whole grant ends (its access tokens too).
  await revoke(client, auth, after.refresh_token!);
  t.is((await daemon.request('/v1/auth/me', { key: after.access_token })).status, 401);
  const dead = await refreshByForm(app, after.refresh_token!);
  t.is(dead.status, 400);
  t.is(dead.body.error, 'invalid_grant');
  t.is(dead.body.access_token, undefined);
});

test('client_secret_post works as well as client_secret_basic', async (t) => {
  const { tokens } = await signedInApp('post');
  t.is((await daemon.request('/v1/auth/me', { key: tokens.access_token })).status, 200);
});

test('a public app: no secret, PKCE, client_id only at the token and revoke endpoints', async (t) => {
  const app = await createApp(daemon, { scopes: ['agents:read'], public: true });
  t.is(app.client_secret, null);
  const client: oauth.Client = { client_id: app.client_id, token_endpoint_auth_method: 'none' };
  const { tokens } = await signIn(client, oauth.None(), 'agents:read');
  t.is((await daemon.request('/v1/auth/me', { key: tokens.access_token })).status, 200);
  const refreshed = await refresh(client, oauth.None(), tokens.refresh_token!);
  await revoke(client, oauth.None(), refreshed.refresh_token!);
  t.is((await daemon.request('/v1/auth/me', { key: refreshed.access_token })).status, 401);
});

test('the token answer: RFC 6749 at the top level, the same under data, no-store', async (t) => {
  const app = await createApp(daemon, { scopes: ['workflows:read'] });
  const client: oauth.Client = { client_id: app.client_id };
  const { params, verifier } = await authorize(client, 'workflows:read');
  const answer = await postForm(daemon, '/v1/oauth/token', {
    grant_type: 'authorization_code',
    code: params.get('code')!,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
    client_id: app.client_id,
    client_secret: app.client_secret!,
  });
  t.is(answer.status, 200, answer.text);
  t.is(answer.headers.get('cache-control'), 'no-store');
  t.is(answer.headers.get('pragma'), 'no-cache');
  t.regex(answer.headers.get('content-type')!, /^application\/json/);
  const { data, meta, ...top } = answer.body;
  t.deepEqual(Object.keys(top).sort(), [
    'access_token',
    'expires_in',
    'refresh_token',
    'scope',
    'token_type',
  ]);
  t.deepEqual(data, top);
  t.is(top.token_type, 'Bearer');
  t.is(top.expires_in, 3600);
  t.is(meta.request_id, answer.headers.get('x-request-id'));
});

test('the consent page: app name, scopes in words, workspace picker, Approve and Deny; not frameable', async (t) => {
  const otherWs = await daemon.createWorkspace('Client project', 'starter');
  const app = await createApp(daemon, {
    name: 'Acme <Connector>',
    scopes: ['agents:read', 'workflows:execute'],
  });
  const browser = new Browser();
  const url = new URL(as.authorization_endpoint!);
  for (const [name, value] of Object.entries({
    response_type: 'code',
    client_id: app.client_id,
    redirect_uri: REDIRECT,
    scope: 'agents:read workflows:execute',
    state: 's1',
  }))
    url.searchParams.set(name, value);
  const page = await browser.get(url);
  t.is(page.status, 200);
  t.regex(page.headers.get('content-type')!, /^text\/html/);
  t.true(page.text.includes('Acme &#60;Connector&#62;'), 'the name is escaped');
  t.false(page.text.includes('<Connector>'));
  t.true(page.text.includes('View agents and configurations'));
  t.true(page.text.includes('Run workflows'));
  t.false(page.text.includes('<script'), 'no JavaScript needed');
  const csp = page.headers.get('content-security-policy')!;
  t.true(csp.includes("frame-ancestors 'none'"));
  t.is(page.headers.get('x-frame-options'), 'DENY');
  const cookie = page.headers.getSetCookie().join('\n');
  t.regex(cookie, /HttpOnly/);
  t.regex(cookie, /SameSite=Strict/);
  const form = parseConsentForm(page.text);
  t.deepEqual(form.decisions, ['approve', 'deny']);
  t.true(form.workspaces.includes(defaultWs));
  t.true(form.workspaces.includes(otherWs));
  t.is(form.selected, defaultWs, "the app's workspace is preselected");

  // Pick the other workspace: the token is bound to it.
  const answer = await browser.post(
    new URL(form.action, daemon.url),
    { ...form.fields, workspace_id: otherWs, decision: 'approve' },
    { origin: daemon.url },
  );
  t.is(answer.status, 302);
  const code = answer.location!.searchParams.get('code')!;
  t.is(answer.location!.searchParams.get('state'), 's1');
  const tokens = await postForm(
    daemon,
    '/v1/oauth/token',
    { grant_type: 'authorization_code', code, redirect_uri: REDIRECT },
    basic(app.client_id, app.client_secret!),
  );
  t.is(tokens.status, 200, tokens.text);
  const me = await daemon.request('/v1/auth/me', { key: tokens.body.access_token });
  t.is(me.body.data.workspace_id, otherWs);
  t.is(me.body.data.tier, 'starter');
  const events = await daemon.request('/v1/agents', {
    key: tokens.body.access_token,
    tenant: otherWs,
  });
  t.is(events.status, 200, events.text);
});

test('Deny sends the user back with error=access_denied and the state, and no code', async (t) => {
  const app = await createApp(daemon, { scopes: ['agents:read'] });
  const url = new URL(as.authorization_endpoint!);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', app.client_id);
  url.searchParams.set('redirect_uri', REDIRECT);
  url.searchParams.set('state', 'keep-me');
  const back = await consent(daemon, url, { decision: 'deny' });
  t.is(back.searchParams.get('error'), 'access_denied');
  t.is(back.searchParams.get('state'), 'keep-me');
  t.is(back.searchParams.get('code'), null);
  const grants = await control<any[]>(
    daemon,
    'oauth.grants.list',
    { client_id: app.client_id, include_revoked: true },
    'query',
  );
  t.is(grants.length, 0);
});

test('svc oauth apps create|list|get|delete and grants list|revoke (delete revokes the tokens)', async (t) => {
  const created = await daemon.cli([
    'oauth',
    'apps',
    'create',
    '--name',
    'CLI app',
    '--redirect-uri',
    REDIRECT,
    '--redirect-uri',
    'http://localhost:3000/other',
    '--scopes',
    'agents:read agents:write',
    '--json',
  ]);
  t.is(created.code, 0, created.stderr);
  const app = created.json();
  t.regex(app.client_id, /^app_/);
  t.regex(app.client_secret, /^svc_cs_/);
  t.deepEqual(app.redirect_uris, [REDIRECT, 'http://localhost:3000/other']);
  t.deepEqual(app.scopes, ['agents:read', 'agents:write']);
  t.is(app.workspace_id, defaultWs);

  const listed = (await daemon.cli(['oauth', 'apps', 'list', '--json'])).json().data;
  const mine = listed.find((a: any) => a.client_id === app.client_id);
  t.truthy(mine);
  t.is(mine.client_secret, undefined, 'the secret is shown once');
  t.false(JSON.stringify(listed).includes(app.client_secret));
  const got = await daemon.cli(['oauth', 'apps', 'get', app.client_id, '--json']);
  t.is(got.json().name, 'CLI app');
  const human = await daemon.cli(['oauth', 'apps', 'list']);
  t.true(human.stdout.includes(app.client_id));

  const client: oauth.Client = { client_id: app.client_id };
  const { tokens } = await signIn(
    client,
    oauth.ClientSecretBasic(app.client_secret),
    'agents:read',
  );
  const grants = (
    await daemon.cli(['oauth', 'grants', 'list', '--client', app.client_id, '--json'])
  ).json().data;
  t.is(grants.length, 1);
  t.is(grants[0].status, 'active');
  t.is(grants[0].workspace_id, defaultWs);
  t.deepEqual(grants[0].scopes, ['agents:read']);
  t.is(grants[0].active_tokens, 2);

  const deleted = await daemon.cli(['oauth', 'apps', 'delete', app.client_id, '--json']);
  t.is(deleted.code, 0, deleted.stderr);
  const me = await daemon.request('/v1/auth/me', { key: tokens.access_token });
  t.is(me.status, 401);
  t.is(me.body.error.code, 'invalid_token');
  const missing = await daemon.cli(['oauth', 'apps', 'get', app.client_id]);
  t.is(missing.code, 1);
  const revokedGrants = (
    await daemon.cli(['oauth', 'grants', 'list', '--client', app.client_id, '--all', '--json'])
  ).json().data;
  t.is(revokedGrants[0].status, 'revoked');
  t.is(revokedGrants[0].revoked_reason, 'app deleted');
});

test('svc oauth grants revoke ends the tokens of that grant at once', async (t) => {
  const { app, tokens } = await signedInApp();
  t.is((await daemon.request('/v1/auth/me', { key: tokens.access_token })).status, 200);
  // The grant over the control channel, as `svc oauth grants list --client` reads it (tested
  // in the test above); `revoke` is the subject.
  const grants = await control<{ id: string }[]>(
    daemon,
    'oauth.grants.list',
    { client_id: app.client_id },
    'query',
  );
  t.is(grants.length, 1);
  const revoked = await daemon.cli(['oauth', 'grants', 'revoke', grants[0]!.id, '--json']);
  t.is(revoked.code, 0, revoked.stderr);
  t.is(revoked.json().status, 'revoked');
  t.is((await daemon.request('/v1/auth/me', { key: tokens.access_token })).status, 401);
  const refresh = await refreshByForm(app, tokens.refresh_token!);
  t.is(refresh.body.error, 'invalid_grant');
});

test('usage errors of svc oauth apps create exit 2', async (t) => {
  const noUri = await daemon.cli(['oauth', 'apps', 'create', '--name', 'x', '--scopes', 'admin']);
  t.is(noUri.code, 2);
  t.regex(noUri.stderr, /--redirect-uri/);
  const badScope = await daemon.cli([
    'oauth',
    'apps',
    'create',
    '--name',
    'x',
    '--redirect-uri',
    REDIRECT,
    '--scopes',
    'agents:fly',
  ]);
  t.is(badScope.code, 2);
  t.regex(badScope.stderr, /agents:fly/);
});

test('the OpenAPI document: oauth2 scheme with real URLs, form bodies, RFC answers, security per route', async (t) => {
  const doc = (await daemon.request('/openapi.json')).body;
  const flow = doc.components.securitySchemes.oauth2.flows.authorizationCode;
  t.is(flow.authorizationUrl, `${daemon.url}/oauth/authorize`);
  t.is(flow.tokenUrl, `${daemon.baseUrl}/oauth/token`);
  t.truthy(flow.scopes['agents:read']);
  const token = doc.paths['/v1/oauth/token'].post;
  const form = token.requestBody.content['application/x-www-form-urlencoded'].schema;
  t.truthy(form.properties.grant_type);
  t.truthy(form.properties.code_verifier);
  t.truthy(token.responses['200'].content['application/json'].schema.properties.access_token);
  t.true(token.responses['400'].description.includes('invalid_grant'));
  t.true(token.responses['401'].description.includes('invalid_client'));
  t.truthy(doc.paths['/v1/oauth/revoke'].post.requestBody);
  t.truthy(doc.paths['/oauth/authorize'].get);
  t.truthy(doc.paths['/.well-known/oauth-authorization-server'].get);
  const listAgents = doc.paths['/v1/agents'].get;
  t.deepEqual(listAgents.security.slice(0, 2), [{ bearerAuth: [] }, { oauth2: ['agents:read'] }]);
});

test('codes, tokens and secrets never reach the daemon log, even when sent in a URL', async (t) => {
  const { app, client, auth, tokens, code, verifier } = await signedInApp();
  const refreshed = await refresh(client, auth, tokens.refresh_token!);
  // A careless client puts them in URLs: refused, and cut out of the request log.
  const inUrl = await daemon.request(
    `/v1/auth/me?access_token=${refreshed.access_token}&refresh_token=${refreshed.refresh_token}`,
  );
  t.is(inUrl.status, 401);
  await daemon.request(`/v1/oauth/token?code=${code}&client_secret=${app.client_secret}`, {
    method: 'POST',
  });
  const marker = await daemon.request(`/v1/auth/me`, { key: refreshed.access_token });
  const requestId = marker.headers.get('x-request-id')!;
  // The logger writes in batches (every 200 ms): wait, bounded, until the last line is out.
  await waitForLog(daemon.dataDir, (text) => text.includes(requestId));
  const log = readLog(daemon.dataDir);
  t.true(log.includes(requestId), 'the request lines were written');
  for (const secret of [
    app.client_secret!,
    code,
    verifier,
    tokens.access_token,
    tokens.refresh_token!,
    refreshed.access_token,
    refreshed.refresh_token!,
  ]) {
    t.false(log.includes(secret), `${secret.slice(0, 7)}... is not in the log`);
  }
});
