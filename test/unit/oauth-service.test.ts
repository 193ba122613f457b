// The OAuth provider's rules in-process: what an app stores, the order of the authorization
// request checks, codes and refresh tokens on the daemon clock with reuse detection, and access
// tokens as credentials (cached by hash, revocation and expiry at once).
import test from 'ava';
import { createHash, randomBytes } from 'node:crypto';
import type { Scope } from '../../shared/scopes.js';
import { CredentialService } from '../../daemon/auth/credential.service.js';
import { ApiError } from '../../daemon/domain/errors.js';
import { KeyRepository } from '../../daemon/keys/key.repository.js';
import type { AuthorizeRequest } from '../../daemon/oauth/oauth.service.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';

const REDIRECT = 'http://localhost:3000/cb';
const MINUTE = 60_000;

async function withApp(run: (svc: TestApp) => Promise<void> | void): Promise<void> {
  const svc = await buildTestApp();
  try {
    await run(svc);
  } finally {
    await svc.cleanup();
  }
}

function challenge(): string {
  return createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');
}

function createApp(svc: TestApp, scopes: Scope[] = ['agents:read'], isPublic = false) {
  return svc.services.oauth.createApp({
    name: 'Unit app',
    redirect_uris: [REDIRECT],
    scopes,
    public: isPublic,
  });
}

/** An app, approved once in the default workspace: the app and its grant. */
function approvedApp(svc: TestApp) {
  const created = createApp(svc);
  svc.services.oauth.approve(
    okRequest(svc, {
      response_type: 'code',
      client_id: created.app.client_id,
      redirect_uri: REDIRECT,
    }),
    svc.defaultWorkspaceId,
  );
  const [grant] = svc.services.oauth.listGrants();
  return { app: created.app, grant };
}

function okRequest(svc: TestApp, params: Record<string, unknown>): AuthorizeRequest {
  const check = svc.services.oauth.checkAuthorize(params);
  if (check.type !== 'ok') throw new Error(JSON.stringify(check));
  return check.request;
}

test('an app stores only the SHA-256 of its secret; a public app has none', async (t) => {
  await withApp((svc) => {
    const { app, clientSecret } = createApp(svc);
    t.regex(clientSecret!, /^svc_cs_[A-Za-z0-9]{40}$/);
    const row = svc.services.db
      .prepare('SELECT * FROM oauth_apps WHERE id = ?')
      .get(app.client_id) as Record<string, unknown>;
    t.false(JSON.stringify(row).includes(clientSecret!));
    t.is(row.secret_hash, createHash('sha256').update(clientSecret!).digest('hex'));
    t.truthy(svc.services.oauth.authenticateClient(app.client_id, clientSecret!));
    t.is(svc.services.oauth.authenticateClient(app.client_id, 'svc_cs_wrong'), null);
    t.is(svc.services.oauth.authenticateClient(app.client_id, undefined), null);

    const pub = createApp(svc, ['agents:read'], true);
    t.is(pub.clientSecret, null);
    t.is(pub.app.token_endpoint_auth_method, 'none');
    t.truthy(svc.services.oauth.authenticateClient(pub.app.client_id, undefined));
    t.is(svc.services.oauth.authenticateClient(pub.app.client_id, 'anything'), null);
  });
});

test('an app for an unknown workspace is refused', async (t) => {
  await withApp((svc) => {
    const error = t.throws(
      () =>
        svc.services.oauth.createApp({
          name: 'x',
          redirect_uris: [REDIRECT],
          scopes: ['admin'],
          workspace_id: 'ws_nope',
        }),
      { instanceOf: ApiError },
    );
    t.is(error?.code, 'not_found');
  });
});

test('authorization checks: page errors before redirect errors, in RFC 6749 order', async (t) => {
  await withApp((svc) => {
    const { app } = createApp(svc, ['agents:read', 'agents:write']);
    const oauth = svc.services.oauth;
    const base = {
      response_type: 'code',
      client_id: app.client_id,
      redirect_uri: REDIRECT,
      state: 's',
    };
    t.is(oauth.checkAuthorize({}).type, 'error_page');
    t.is(
      oauth.checkAuthorize({ ...base, client_id: 'app_x', response_type: 'x' }).type,
      'error_page',
    );
    t.is(
      oauth.checkAuthorize({ ...base, redirect_uri: 'http://x/cb', response_type: 'x' }).type,
      'error_page',
    );
    t.is(oauth.checkAuthorize({ ...base, client_id: [app.client_id, 'b'] }).type, 'error_page');
    const unsupported = oauth.checkAuthorize({ ...base, response_type: 'token', scope: 'admin' });
    t.like(unsupported, { type: 'redirect_error', error: 'unsupported_response_type', state: 's' });
    t.like(oauth.checkAuthorize({ ...base, scope: 'agents:execute' }), {
      type: 'redirect_error',
      error: 'invalid_scope',
    });
    t.like(oauth.checkAuthorize({ ...base, scope: 'nope' }), { error: 'invalid_scope' });
    // No scope: everything the app is registered for.
    t.deepEqual(okRequest(svc, base).scopes, ['agents:read', 'agents:write']);
    t.deepEqual(okRequest(svc, { ...base, scope: 'agents:write' }).scopes, ['agents:write']);
  });
});

test('PKCE at authorization: S256 only, well-formed, required for public apps', async (t) => {
  await withApp((svc) => {
    const confidential = createApp(svc).app;
    const pub = createApp(svc, ['agents:read'], true).app;
    const oauth = svc.services.oauth;
    const base = { response_type: 'code', redirect_uri: REDIRECT };
    t.is(oauth.checkAuthorize({ ...base, client_id: confidential.client_id }).type, 'ok');
    t.like(oauth.checkAuthorize({ ...base, client_id: pub.client_id }), {
      error: 'invalid_request',
    });
    const good = challenge();
    const withPkce = okRequest(svc, {
      ...base,
      client_id: pub.client_id,
      code_challenge: good,
      code_challenge_method: 'S256',
    });
    t.is(withPkce.codeChallenge, good);
    for (const bad of [
      { code_challenge: good },
      { code_challenge: good, code_challenge_method: 'plain' },
      { code_challenge: 'short', code_challenge_method: 'S256' },
      { code_challenge_method: 'S256' },
    ]) {
      t.like(oauth.checkAuthorize({ ...base, client_id: confidential.client_id, ...bad }), {
        type: 'redirect_error',
        error: 'invalid_request',
      });
    }
  });
});

test('a code is single-use and lives 10 minutes on the daemon clock; reuse revokes its grant', async (t) => {
  await withApp((svc) => {
    const oauth = svc.services.oauth;
    const { app } = createApp(svc);
    const request = okRequest(svc, {
      response_type: 'code',
      client_id: app.client_id,
      redirect_uri: REDIRECT,
    });
    const code = oauth.approve(request, svc.defaultWorkspaceId);
    t.regex(code, /^svc_ac_/);
    const stored = svc.services.db.prepare('SELECT * FROM oauth_codes').all();
    t.false(JSON.stringify(stored).includes(code), 'only the hash is stored');

    svc.services.clock.setOffset(9 * MINUTE);
    const found = oauth.lookupCode(code);
    t.is(found.type, 'ok');
    t.true(oauth.consumeCode(code));
    t.false(oauth.consumeCode(code), 'a second use loses');
    t.is(oauth.lookupCode(code).type, 'reused');
    const [grant] = oauth.listGrants({ includeRevoked: true });
    t.is(grant!.status, 'revoked');
    t.is(grant!.revoked_reason, 'authorization code reused');

    const late = oauth.approve(request, svc.defaultWorkspaceId);
    svc.services.clock.setOffset(19 * MINUTE + 1);
    t.is(oauth.lookupCode(late).type, 'expired');
    t.false(oauth.consumeCode(late), 'an expired code cannot be consumed');
    t.is(oauth.lookupCode('svc_ac_unknown').type, 'invalid');
  });
});

test('approval needs a workspace of the operator', async (t) => {
  await withApp((svc) => {
    const { app } = createApp(svc);
    const request = okRequest(svc, {
      response_type: 'code',
      client_id: app.client_id,
      redirect_uri: REDIRECT,
    });
    t.throws(() => svc.services.oauth.approve(request, 'ws_nope'), { instanceOf: ApiError });
  });
});

test('access tokens are credentials bound to the grant: scopes, workspace, 1 h expiry', async (t) => {
  await withApp(async (svc) => {
    const oauth = svc.services.oauth;
    const ws = svc.services.workspaces.create('Client', 'starter');
    const { app } = createApp(svc, ['agents:read', 'webhooks:read']);
    const request = okRequest(svc, {
      response_type: 'code',
      client_id: app.client_id,
      redirect_uri: REDIRECT,
      scope: 'webhooks:read',
    });
    oauth.approve(request, ws.id);
    const [grant] = oauth.listGrants();
    const issued = oauth.issueTokens(grant!.id, ['webhooks:read'])!;
    const credential = svc.services.credentials.resolve(issued.accessToken);
    t.is(credential.type, 'oauth');
    t.is(credential.workspaceId, ws.id);
    t.is(credential.id, grant!.id);
    t.deepEqual([...credential.scopes], ['webhooks:read']);
    t.is(credential.userId, svc.services.workspaces.operatorUser.id);
    const stored = svc.services.db.prepare('SELECT * FROM oauth_tokens').all();
    t.false(JSON.stringify(stored).includes(issued.accessToken));
    t.false(JSON.stringify(stored).includes(issued.refreshToken));

    const me = await svc.app.inject({
      method: 'GET',
      url: '/v1/auth/me',
      headers: { authorization: `Bearer ${issued.accessToken}` },
    });
    t.is(me.statusCode, 200);
    t.like(me.json().data, { workspace_id: ws.id, tier: 'starter', credential_type: 'oauth' });

    svc.services.clock.setOffset(60 * MINUTE);
    const expired = t.throws(() => svc.services.credentials.resolve(issued.accessToken), {
      instanceOf: ApiError,
    });
    t.is(expired?.code, 'invalid_token');
    t.truthy(expired?.extras.expires_at);
  });
});

test('the token lookup is cached by hash; revocation takes effect at once', async (t) => {
  await withApp((svc) => {
    const { oauth, keys, hooks } = svc.services;
    let lookups = 0;
    // The daemon's credentials, with a lookup that counts, dropping its cache as they do.
    const credentials = new CredentialService({
      keys: new KeyRepository(svc.services.db),
      clock: svc.services.clock,
      environment: 'sandbox',
      usage: keys.usage,
      accessTokens: (hash) => {
        lookups += 1;
        return oauth.accessTokenByHash(hash);
      },
    });
    hooks.add('credentialsChanged', () => credentials.invalidate());
    const { grant } = approvedApp(svc);
    const issued = oauth.issueTokens(grant!.id, ['agents:read'])!;
    for (let i = 0; i < 5; i++) credentials.resolve(issued.accessToken);
    t.is(lookups, 1, 'one store read for five requests');
    // A refresh rotates the refresh token without touching the cached access token.
    oauth.issueTokens(grant!.id, ['agents:read']);
    credentials.resolve(issued.accessToken);
    t.is(lookups, 1);
    oauth.revokeGrant(grant!.id);
    const error = t.throws(() => credentials.resolve(issued.accessToken), {
      instanceOf: ApiError,
    });
    t.regex(error!.message, /revoked/);
  });
});

test('a rotated-out refresh token presented again revokes the whole grant', async (t) => {
  await withApp((svc) => {
    const oauth = svc.services.oauth;
    const { grant } = approvedApp(svc);
    const first = oauth.issueTokens(grant!.id, ['agents:read'])!;
    const found = oauth.lookupRefreshToken(first.refreshToken);
    if (found.type !== 'ok') throw new Error(found.type);
    t.true(oauth.consumeRefreshToken(found.row.id));
    t.false(oauth.consumeRefreshToken(found.row.id));
    const second = oauth.issueTokens(grant!.id, ['agents:read'])!;
    t.is(oauth.lookupRefreshToken(first.refreshToken).type, 'reused');
    t.is(oauth.lookupRefreshToken(second.refreshToken).type, 'invalid');
    t.throws(() => svc.services.credentials.resolve(second.accessToken), { instanceOf: ApiError });
    t.is(oauth.listGrants({ includeRevoked: true })[0]!.revoked_reason, 'refresh token reused');
    t.is(oauth.issueTokens(grant!.id, ['agents:read']), null, 'a revoked grant issues nothing');
    t.is(oauth.lookupRefreshToken(first.accessToken).type, 'invalid', 'not a refresh token');
  });
});

test('deleting an app revokes every grant and token it had', async (t) => {
  await withApp((svc) => {
    const oauth = svc.services.oauth;
    const { app, grant } = approvedApp(svc);
    const issued = oauth.issueTokens(grant!.id, ['agents:read'])!;
    t.truthy(svc.services.credentials.resolve(issued.accessToken));
    oauth.deleteApp(app.client_id);
    t.throws(() => svc.services.credentials.resolve(issued.accessToken), { instanceOf: ApiError });
    t.is(oauth.findApp(app.client_id), undefined);
    t.is(oauth.listApps().length, 0);
    t.is(oauth.authenticateClient(app.client_id, undefined), null);
  });
});

test('housekeeping removes codes and tokens a day after they expired; grants stay', async (t) => {
  await withApp((svc) => {
    const oauth = svc.services.oauth;
    const { grant } = approvedApp(svc);
    oauth.issueTokens(grant!.id, ['agents:read']);
    t.is(oauth.listGrants()[0]!.active_tokens, 2);
    svc.services.clock.setOffset(2 * 60 * MINUTE);
    t.is(oauth.listGrants()[0]!.active_tokens, 1, 'the access token expired after 1 h');
    t.is(oauth.purgeExpired(), 0, 'nothing is a day past expiry yet');
    svc.services.clock.setOffset(31 * 24 * 60 * MINUTE);
    t.is(oauth.purgeExpired(), 3, 'the code, the access and the refresh token');
    t.is(oauth.listGrants().length, 1);
  });
});
