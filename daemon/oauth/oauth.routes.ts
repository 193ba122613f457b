// The OAuth 2.0 endpoints: the consent step at {app_url}/oauth/authorize (HTML), the token and
// revoke endpoints (form bodies, RFC 6749 / RFC 7009 answers) and the RFC 8414 metadata.
// They answer in their protocols' forms, not in the API envelope, so their errors are made here.
import OAuth2Server from '@node-oauth/oauth2-server';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  AuthorizationServerMetadata,
  OAUTH_ERRORS,
  RevokeRequestForm,
  RevokeResponse,
  TokenRequestForm,
  TokenResponse,
  type OAuthErrorCode,
  type TokenFieldsBody,
} from '../../shared/schemas/oauth.js';
import { SCOPES } from '../../shared/scopes.js';
import type { Clock } from '../time/clock.js';
import { ApiError } from '../domain/errors.js';
import { sendError, toApiError } from '../http/error-handler.js';
import { rawRoute, REQUIRED_BY_HANDLER, type RouteDef } from '../http/route.js';
import type { RestModule } from '../http/rest-module.js';
import type { ServerUrls } from '../domain/urls.js';
import type { Limiter } from '../ratelimit/limiter.js';
import type { Operation, RatePlans } from '../ratelimit/plans.js';
import type { WorkspaceService } from '../workspaces/workspace.service.js';
import { renderConsentPage, renderErrorPage } from './consent-page.js';
import { ConsentCsrf } from './consent-csrf.js';
import { formDecode, oauthModel } from './oauth-model.js';
import { ScopeFirstRefreshGrant } from './refresh-grant.js';
import type { AuthorizeCheck, IssuedTokens, OAuthApp, OAuthService } from './oauth.service.js';
import { ACCESS_TOKEN_TTL_MS } from './oauth.service.js';

export interface OAuthRouteDeps {
  oauth: OAuthService;
  workspaces: WorkspaceService;
  limiter: Limiter;
  plans: RatePlans;
  clock: Clock;
  urls: ServerUrls;
}

/** An error of the token or revoke endpoint, answered as {error, error_description}. */
export class OAuthProtocolError extends Error {
  constructor(
    readonly code: OAuthErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
    readonly extras: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

const AUTHORIZE_PARAMS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'code_challenge',
  'code_challenge_method',
] as const;

/**
 * A query parameter checked by the handler (errors go back to the client as a page or a
 * redirect, not as the API's JSON), described here: a string, required where the handler needs it.
 */
const documented = (description: string, required = false) =>
  z
    .unknown()
    .optional()
    .meta({ description, type: 'string', ...(required ? { [REQUIRED_BY_HANDLER]: true } : {}) });

const AuthorizeQuery = z.looseObject({
  response_type: documented('Always `code`', true),
  client_id: documented('The app (app_...)', true),
  redirect_uri: documented('Exactly one of the registered redirect URIs', true),
  scope: documented("Space-separated; within the app's scopes (default: all of them)"),
  state: documented('Passed back unchanged'),
  code_challenge: documented('PKCE (RFC 7636): base64url SHA-256 of the verifier'),
  code_challenge_method: documented('`S256` (required with PKCE)'),
});

const ConsentForm = z
  .object({
    csrf_token: z.string(),
    decision: z.enum(['approve', 'deny']),
    workspace_id: z.string(),
    response_type: z.literal('code'),
    client_id: z.string(),
    redirect_uri: z.string(),
    scope: z.string(),
    state: z.string().optional(),
    code_challenge: z.string().optional(),
    code_challenge_method: z.literal('S256').optional(),
  })
  .meta({ title: 'ConsentForm' });

const HTML = 'text/html; charset=utf-8';

const tag = {
  name: 'OAuth',
  description:
    'The OAuth 2.0 provider: authorization code flow with PKCE, refresh rotation, revocation and RFC 8414 metadata. Apps are registered with `svc oauth apps create`.',
};

/** Served in a scope of its own (form bodies, cookies, RFC 6749 errors): see app.ts. */
export const oauthModule: RestModule<OAuthRouteDeps> = { tag, routes: oauthRoutes };

export function oauthRoutes(deps: OAuthRouteDeps): RouteDef[] {
  const { oauth, urls } = deps;
  const csrf = new ConsentCsrf();
  const server = new OAuth2Server({
    model: oauthModel(oauth),
    accessTokenLifetime: ACCESS_TOKEN_TTL_MS / 1000,
    // Public apps authenticate with their client_id alone; the model refuses a confidential
    // app that sends no secret, and a public app's codes always carry a PKCE challenge.
    requireClientAuthentication: { authorization_code: false, refresh_token: false },
    alwaysIssueNewRefreshToken: true,
    extendedGrantTypes: {
      refresh_token: ScopeFirstRefreshGrant as unknown as typeof OAuth2Server.AbstractGrantType,
    },
  });

  return [
    rawRoute({
      method: 'GET',
      path: '/oauth/authorize',
      operationId: 'authorize',
      summary: 'Authorization endpoint: the consent page (HTML)',
      description:
        "RFC 6749 §4.1.1 with PKCE (RFC 7636, S256 only; required for public apps). An unknown client_id or a redirect_uri that is not exactly a registered one -> 400 HTML page, never a redirect. An unsupported response_type or a scope beyond the app's -> redirect with `error` and `state`. Otherwise a server-rendered consent page (no JavaScript): the app, the scopes in plain words, a workspace picker, Approve and Deny. Rate limit: 10/minute per client, scaled by the tier of the app's workspace.",
      tag: tag.name,
      auth: { kind: 'public' },
      query: AuthorizeQuery,
      // Too many requests of one app: a page too (429).
      errors: ['rate_limit_exceeded'],
      html: {
        redirect:
          'A request whose app and redirect URI are valid but that is otherwise refused: to `redirect_uri?error=...&error_description=...&state=...&iss=...` (RFC 6749 §4.1.2.1).',
      },
      contentType: HTML,
      response: z.string(),
      handler: ({ request, reply }) => {
        const check = oauth.checkAuthorize(request.query as Record<string, unknown>);
        secureHtml(reply, check.type === 'ok' ? check.request.redirectUri : undefined);
        if (check.type === 'ok') {
          const limited = limit(deps, reply, 'oauth.authorize', check.request.app);
          if (limited) {
            reply.headers(limited.headers);
            return htmlError(reply, 429, 'Too many authorization requests', limited.message);
          }
        }
        if (check.type !== 'ok') return answerCheck(reply, check, urls);
        return renderConsentPage({
          request: check.request,
          workspaces: oauth.grantableWorkspaces(),
          csrfToken: csrf.issue(request, reply, check.request.app.client_id),
        });
      },
    }),
    rawRoute({
      method: 'POST',
      path: '/oauth/authorize',
      operationId: 'submitConsent',
      summary: 'The consent decision (the form of the consent page)',
      description:
        "Posted by the consent page. Refused with a 403 HTML page when the Origin is another site's, the consent cookie is missing or the CSRF token does not match it. Approve -> 302 to `redirect_uri?code=...&state=...&iss=...` (the code is single-use, valid 10 minutes on the daemon clock, bound to the client, redirect URI, PKCE challenge, scopes and workspace); Deny -> 302 with `error=access_denied`.",
      tag: tag.name,
      auth: { kind: 'public' },
      form: ConsentForm,
      html: {
        redirect:
          'The decision: Approve -> `redirect_uri?code=...&state=...&iss=...`, Deny -> `redirect_uri?error=access_denied&state=...&iss=...`.',
      },
      contentType: HTML,
      response: z.string(),
      handler: ({ request, reply }) => {
        const form = formBody(request);
        secureHtml(reply, undefined);
        if (!form) {
          return htmlError(reply, 400, 'Bad consent form', 'The consent form must be posted.');
        }
        const params = Object.fromEntries(AUTHORIZE_PARAMS.map((name) => [name, form[name]]));
        const clientId = typeof form.client_id === 'string' ? form.client_id : '';
        const refused = csrf.refuse(request, form.csrf_token, clientId);
        if (refused) return htmlError(reply, 403, 'Consent refused', refused);
        const check = oauth.checkAuthorize(params);
        if (check.type !== 'ok') return answerCheck(reply, check, urls);
        const { request: authorize } = check;
        if (form.decision === 'deny') {
          return redirectTo(reply, authorize.redirectUri, {
            error: 'access_denied',
            error_description: 'The user denied the request.',
            state: authorize.state,
            iss: urls.app,
          });
        }
        if (form.decision !== 'approve') {
          return htmlError(reply, 400, 'Bad consent form', 'Choose Approve or Deny.');
        }
        const workspaceId = typeof form.workspace_id === 'string' ? form.workspace_id : '';
        let code: string;
        try {
          code = oauth.approve(authorize, workspaceId);
        } catch (error) {
          if (error instanceof ApiError)
            return htmlError(reply, 400, 'Bad consent form', error.message);
          throw error;
        }
        return redirectTo(reply, authorize.redirectUri, {
          code,
          state: authorize.state,
          iss: urls.app,
        });
      },
    }),
    rawRoute({
      method: 'POST',
      path: '/v1/oauth/token',
      operationId: 'createToken',
      summary: 'Token endpoint: exchange a code or a refresh token',
      description:
        '`application/x-www-form-urlencoded` only. Client authentication by `client_secret_basic` (HTTP Basic) or `client_secret_post`; a public app sends only `client_id` and must use PKCE. `authorization_code` needs `code`, `redirect_uri` (exactly as authorized) and the PKCE `code_verifier` when a challenge was sent; reusing a code revokes every token issued from it. `refresh_token` rotates the refresh token on every use; presenting a rotated-out one revokes the whole grant (RFC 9700 reuse detection); `scope` may narrow, never widen. The answer is RFC 6749 §5.1 at the top level and the same object under `data`, with `Cache-Control: no-store`. Access tokens live 1 hour, refresh tokens 30 days, on the daemon clock. Errors are `{error, error_description}` (RFC 6749 §5.2); `invalid_client` is 401 with `WWW-Authenticate`. Rate limit: 20/minute per client, scaled by the tier of its workspace.',
      tag: tag.name,
      auth: { kind: 'public' },
      form: TokenRequestForm,
      oauthErrors: [
        'invalid_request',
        'invalid_client',
        'invalid_grant',
        'unauthorized_client',
        'unsupported_grant_type',
        'invalid_scope',
        'rate_limit_exceeded',
      ],
      response: TokenResponse,
      handler: async ({ request, reply }) => {
        noStore(reply);
        try {
          const form = requireForm(request);
          const grantType = form.grant_type;
          if (grantType === undefined || grantType === '') {
            throw new OAuthProtocolError('invalid_request', 'Missing parameter: grant_type.');
          }
          if (grantType !== 'authorization_code' && grantType !== 'refresh_token') {
            throw new OAuthProtocolError(
              'unsupported_grant_type',
              `grant_type must be authorization_code or refresh_token (got "${String(grantType)}").`,
            );
          }
          const app = claimedClient(request, form, oauth);
          if (app) {
            const limited = limit(deps, reply, 'oauth.token', app);
            if (limited) throw limited;
          }
          const token = await server.token(
            new OAuth2Server.Request({
              method: request.method,
              headers: request.headers as Record<string, string>,
              query: {},
              body: form,
            }),
            new OAuth2Server.Response({ headers: {} }),
          );
          const issued = token.issued as IssuedTokens;
          const fields: TokenFieldsBody = {
            access_token: issued.accessToken,
            token_type: 'Bearer',
            expires_in: ACCESS_TOKEN_TTL_MS / 1000,
            refresh_token: issued.refreshToken,
            scope: issued.scopes.join(' '),
          };
          return {
            ...fields,
            data: fields,
            meta: { request_id: request.id, timestamp: deps.clock.iso() },
          };
        } catch (error) {
          return oauthErrorReply(request, reply, error);
        }
      },
    }),
    rawRoute({
      method: 'POST',
      path: '/v1/oauth/revoke',
      operationId: 'revokeToken',
      summary: 'Revoke an access or refresh token (RFC 7009)',
      description:
        '`application/x-www-form-urlencoded`, with the same client authentication as the token endpoint. Revoking a refresh token ends its whole grant (its access tokens too); revoking an access token ends that token. Answers 200 even for an unknown token or one issued to another client (which it leaves alone).',
      tag: tag.name,
      auth: { kind: 'public' },
      form: RevokeRequestForm,
      oauthErrors: ['invalid_request', 'invalid_client'],
      response: RevokeResponse,
      handler: ({ request, reply }) => {
        noStore(reply);
        try {
          const form = requireForm(request);
          const { clientId, secret } = clientCredentials(request, form);
          const app = clientId ? oauth.authenticateClient(clientId, secret) : null;
          if (!app) {
            throw new OAuthProtocolError(
              'invalid_client',
              'Client authentication failed: send client_id and client_secret (HTTP Basic or form fields).',
            );
          }
          if (typeof form.token !== 'string' || form.token === '') {
            throw new OAuthProtocolError('invalid_request', 'Missing parameter: token.');
          }
          oauth.revokeToken(app, form.token);
          return { data: {}, meta: { request_id: request.id, timestamp: deps.clock.iso() } };
        } catch (error) {
          return oauthErrorReply(request, reply, error);
        }
      },
    }),
    rawRoute({
      method: 'GET',
      path: '/.well-known/oauth-authorization-server',
      operationId: 'getAuthorizationServerMetadata',
      summary: 'OAuth 2.0 authorization server metadata (RFC 8414)',
      description:
        'What OAuth client libraries read to configure themselves: the endpoints, grant types, PKCE method, client authentication methods and scopes. The issuer is {app_url}.',
      tag: tag.name,
      auth: { kind: 'public' },
      response: AuthorizationServerMetadata,
      handler: () => ({
        issuer: urls.app,
        authorization_endpoint: `${urls.app}/oauth/authorize`,
        token_endpoint: `${urls.base}/oauth/token`,
        revocation_endpoint: `${urls.base}/oauth/revoke`,
        response_types_supported: ['code'],
        response_modes_supported: ['query'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: [
          'client_secret_basic',
          'client_secret_post',
          'none',
        ],
        revocation_endpoint_auth_methods_supported: [
          'client_secret_basic',
          'client_secret_post',
          'none',
        ],
        scopes_supported: [...SCOPES],
        authorization_response_iss_parameter_supported: true,
        service_documentation: `${urls.app}/openapi.json`,
      }),
    }),
  ];
}

/**
 * Errors raised before an OAuth handler runs (an unreadable body, a bad query): RFC 6749 form on
 * the token and revoke endpoints, an HTML page on the consent step, the API form elsewhere.
 */
export function oauthScopeErrorHandler(clock: Clock, urls: ServerUrls, dataDir: string) {
  return (error: FastifyError | ApiError, request: FastifyRequest, reply: FastifyReply) => {
    const apiError = toApiError(error, dataDir);
    if (apiError.status >= 500) {
      request.log.error({ err: error, req_id: request.id }, 'unexpected error');
    }
    const path = request.url.split('?')[0] ?? '';
    // An unknown query parameter is refused as on every route (the API's strict query rule);
    // what concerns the protocol (the body) is answered in the protocol's form.
    const queryError = error instanceof ApiError && error.code === 'invalid_parameter';
    if (path.startsWith('/v1/oauth/') && !queryError) {
      const code: OAuthErrorCode = apiError.status >= 500 ? 'server_error' : 'invalid_request';
      const body = oauthErrorReply(request, reply, new OAuthProtocolError(code, apiError.message));
      return reply.type('application/json; charset=utf-8').send(JSON.stringify(body));
    }
    if (path.startsWith('/oauth/')) {
      secureHtml(reply, undefined);
      return reply.send(htmlError(reply, apiError.status, 'Bad request', apiError.message));
    }
    return sendError(request, reply, apiError, clock, urls);
  };
}

/** Errors of the token/revoke endpoints (and of reading their bodies) in RFC 6749 form. */
export function oauthErrorReply(
  request: FastifyRequest,
  reply: FastifyReply,
  error: unknown,
): Record<string, unknown> {
  let code: OAuthErrorCode = 'server_error';
  let message = 'Something went wrong inside the daemon; see svc daemon logs.';
  let headers: Record<string, string> = {};
  let extras: Record<string, unknown> = {};
  if (error instanceof OAuthProtocolError) {
    ({ code, message, headers, extras } = error);
  } else if (error instanceof OAuth2Server.OAuthError && error.name in OAUTH_ERRORS) {
    code = error.name as OAuthErrorCode;
    message = error.message;
    // RFC 6749 §5.2: a redirect_uri that differs from the authorization request's is invalid_grant.
    if (code === 'invalid_request' && /`redirect_uri` is invalid/.test(message))
      code = 'invalid_grant';
  } else if (error instanceof ApiError && error.status < 500) {
    code = 'invalid_request';
    message = error.message;
  } else {
    request.log.error({ err: error, req_id: request.id }, 'unexpected error');
  }
  if (code === 'invalid_client') {
    headers = { ...headers, 'WWW-Authenticate': 'Basic realm="svc", charset="UTF-8"' };
  }
  for (const [name, value] of Object.entries(headers)) reply.header(name, value);
  noStore(reply);
  reply.code(OAUTH_ERRORS[code].status);
  return { error: code, error_description: message, ...extras };
}

function noStore(reply: FastifyReply): void {
  reply.header('Cache-Control', 'no-store');
  reply.header('Pragma', 'no-cache');
}

/** The consent page may not be framed, cached, or leak its URL (state, challenge) onwards. */
function secureHtml(reply: FastifyReply, redirectUri: string | undefined): void {
  // Browsers apply form-action to the redirect after the POST too, so the app's origin is allowed.
  let formAction = "'self'";
  if (redirectUri) {
    const origin = new URL(redirectUri).origin;
    if (origin !== 'null') formAction += ` ${origin}`;
  }
  reply.header(
    'Content-Security-Policy',
    `default-src 'none'; style-src 'unsafe-inline'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
  );
  reply.header('X-Frame-Options', 'DENY');
  reply.header('Referrer-Policy', 'no-referrer');
  reply.header('X-Content-Type-Options', 'nosniff');
  reply.header('Cache-Control', 'no-store');
}

function htmlError(reply: FastifyReply, status: number, title: string, message: string): string {
  reply.code(status).type(HTML);
  return renderErrorPage(title, message);
}

function answerCheck(
  reply: FastifyReply,
  check: Exclude<AuthorizeCheck, { type: 'ok' }>,
  urls: ServerUrls,
): string | FastifyReply {
  if (check.type === 'error_page') {
    return htmlError(reply, 400, 'Invalid authorization request', check.message);
  }
  return redirectTo(reply, check.redirectUri, {
    error: check.error,
    error_description: check.description,
    state: check.state,
    iss: urls.app,
  });
}

/** 302 to a registered redirect URI, adding our parameters to the query it may already have. */
function redirectTo(
  reply: FastifyReply,
  redirectUri: string,
  params: Record<string, string | undefined>,
): FastifyReply {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined) url.searchParams.set(name, value);
  }
  reply.header('Cache-Control', 'no-store');
  return reply.redirect(url.href, 302);
}

/**
 * Counts a request in the app's per-client bucket (scaled by its workspace's tier) and sets the
 * rate-limit headers; returns the refusal (also as headers) when the bucket is full.
 */
function limit(
  deps: OAuthRouteDeps,
  reply: FastifyReply,
  operation: Operation,
  app: OAuthApp,
): OAuthProtocolError | null {
  const tier = deps.workspaces.get(app.workspace_id)?.tier ?? 'free';
  const verdict = deps.limiter.hit([deps.plans.forOperation(operation, tier, app.client_id)]);
  const state = verdict.allowed ? verdict.tightest : verdict.exceeded;
  if (state) {
    reply.header('X-RateLimit-Limit', state.limit);
    reply.header('X-RateLimit-Remaining', state.remaining);
    reply.header('X-RateLimit-Reset', Math.ceil(state.resetAt / 1000));
  }
  if (verdict.allowed) return null;
  const retryAfter = Math.max(1, Math.ceil((verdict.exceeded.resetAt - deps.clock.now()) / 1000));
  return new OAuthProtocolError(
    'rate_limit_exceeded',
    `Rate limit exceeded: ${verdict.exceeded.spec.describe} for client ${app.client_id} (${tier} tier). Retry in ${retryAfter} s.`,
    { 'Retry-After': String(retryAfter) },
    {
      limit: verdict.exceeded.limit,
      remaining: 0,
      reset_at: new Date(verdict.exceeded.resetAt).toISOString(),
    },
  );
}

type Form = Record<string, unknown>;

function formBody(request: FastifyRequest): Form | undefined {
  const type = request.headers['content-type'] ?? '';
  if (!/^application\/x-www-form-urlencoded\b/i.test(type)) return undefined;
  const body = request.body;
  return body && typeof body === 'object' ? (body as Form) : {};
}

/** The form, with each parameter at most once (RFC 6749 §3.2). */
function requireForm(request: FastifyRequest): Form {
  const form = formBody(request);
  if (!form) {
    throw new OAuthProtocolError(
      'invalid_request',
      'The body must be application/x-www-form-urlencoded.',
    );
  }
  for (const [name, value] of Object.entries(form)) {
    if (Array.isArray(value)) {
      throw new OAuthProtocolError('invalid_request', `The parameter ${name} is repeated.`);
    }
  }
  return form;
}

function clientCredentials(
  request: FastifyRequest,
  form: Form,
): { clientId: string | undefined; secret: string | undefined } {
  const header = request.headers.authorization;
  if (header && /^basic\s+/i.test(header)) {
    const decoded = Buffer.from(header.replace(/^basic\s+/i, ''), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon > 0) {
      return {
        clientId: formDecode(decoded.slice(0, colon)),
        secret: formDecode(decoded.slice(colon + 1)) || undefined,
      };
    }
    return { clientId: undefined, secret: undefined };
  }
  const clientId = typeof form.client_id === 'string' ? form.client_id : undefined;
  const secret =
    typeof form.client_secret === 'string' && form.client_secret !== ''
      ? form.client_secret
      : undefined;
  return { clientId, secret };
}

/** The app a token request names (before it is authenticated), for its rate-limit bucket. */
function claimedClient(request: FastifyRequest, form: Form, oauth: OAuthService) {
  try {
    const { clientId } = clientCredentials(request, form);
    return clientId ? oauth.findApp(clientId) : undefined;
  } catch {
    return undefined;
  }
}
