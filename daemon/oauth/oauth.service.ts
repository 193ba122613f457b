// The OAuth provider's rules: apps (secret shown once), the checks of an authorization request,
// consent -> grant + single-use code, client authentication, token issue and rotation, reuse
// detection and revocation. Grant validation at the token endpoint is done by
// @node-oauth/oauth2-server through the model in oauth-model.ts, which calls into this service.
import { hash, timingSafeEqual } from 'node:crypto';
import { newId, randomBase62 } from '../../shared/ids.js';
import { parseScopes, SCOPES, type Scope } from '../../shared/scopes.js';
import type { OAuthAppCreate } from '../../shared/schemas/oauth.js';
import { ACCESS_TOKEN_PREFIX } from '../auth/credential.service.js';
import type { Clock } from '../time/clock.js';
import { ApiError } from '../domain/errors.js';
import type { Hooks } from '../domain/hooks.js';
import type { Transactions } from '../domain/transactions.js';
import type { WorkspaceService } from '../workspaces/workspace.service.js';
import type {
  AppRow,
  CodeRow,
  GrantRow,
  OAuthRepository,
  TokenRow,
  TokenWithGrant,
} from './oauth.repository.js';

export const CODE_TTL_MS = 10 * 60_000;
export const ACCESS_TOKEN_TTL_MS = 3_600_000;
/** The spec gives no refresh lifetime: 30 days, renewed by every rotation. */
export const REFRESH_TOKEN_TTL_MS = 30 * 86_400_000;

/** Prefixes say what a value is when it turns up somewhere (a log, a bug report). */
export const TOKEN_PREFIXES = {
  access: ACCESS_TOKEN_PREFIX,
  refresh: 'svc_rt_',
  code: 'svc_ac_',
  secret: 'svc_cs_',
} as const;

const PKCE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** One-shot (no Hash object): access tokens are hashed on every request they authenticate. */
export function sha256(value: string): string {
  return hash('sha256', value, 'hex');
}

export interface OAuthApp {
  client_id: string;
  name: string;
  workspace_id: string;
  redirect_uris: string[];
  scopes: Scope[];
  public: boolean;
  token_endpoint_auth_method: 'client_secret_basic' | 'none';
  client_secret_hint: string | null;
  created_at: number;
}

export interface OAuthGrant {
  id: string;
  client_id: string;
  app_name: string | null;
  user_id: string;
  workspace_id: string;
  scopes: Scope[];
  status: 'active' | 'revoked';
  active_tokens: number;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
  revoked_reason: string | null;
}

/** A validated authorization request: what the consent page shows and the approval binds. */
export interface AuthorizeRequest {
  app: OAuthApp;
  redirectUri: string;
  scopes: Scope[];
  state: string | undefined;
  codeChallenge: string | undefined;
  codeChallengeMethod: 'S256' | undefined;
}

/**
 * Outcomes of checking an authorization request (RFC 6749 §4.1.2.1): without a trustworthy
 * redirect URI the user sees an error page; otherwise errors go back to the client.
 */
export type AuthorizeCheck =
  | { type: 'ok'; request: AuthorizeRequest }
  | { type: 'error_page'; message: string }
  | {
      type: 'redirect_error';
      redirectUri: string;
      state: string | undefined;
      error: 'invalid_request' | 'invalid_scope' | 'unsupported_response_type' | 'access_denied';
      description: string;
    };

export interface IssuedTokens {
  accessToken: string;
  refreshToken: string;
  accessExpiresAt: number;
  refreshExpiresAt: number;
  scopes: Scope[];
  grantId: string;
}

/** What the model hands the library and gets back: the grant travels as the "user". */
export interface GrantUser {
  id: string;
  grantId: string;
  workspaceId: string;
}

/** What OAuthService is built from (app/services.ts passes them by name). */
export interface OAuthServiceDeps {
  db: Transactions;
  repo: OAuthRepository;
  workspaces: WorkspaceService;
  clock: Clock;
  /** credentialsChanged, after anything that can end access tokens early (domain/hooks.ts). */
  hooks: Pick<Hooks, 'run'>;
}

export class OAuthService {
  private readonly db: Transactions;
  private readonly repo: OAuthRepository;
  private readonly workspaces: WorkspaceService;
  private readonly clock: Clock;
  private readonly hooks: Pick<Hooks, 'run'>;

  constructor(deps: OAuthServiceDeps) {
    this.db = deps.db;
    this.repo = deps.repo;
    this.workspaces = deps.workspaces;
    this.clock = deps.clock;
    this.hooks = deps.hooks;
  }

  // ---- apps ----

  createApp(input: OAuthAppCreate): { app: OAuthApp; clientSecret: string | null } {
    const workspaceId = this.workspaces.existingId(input.workspace_id, 'workspace');
    const isPublic = input.public === true;
    const secret = isPublic ? null : TOKEN_PREFIXES.secret + randomBase62(40);
    const row: AppRow = {
      id: newId('oauthApp'),
      workspace_id: workspaceId,
      name: input.name,
      redirect_uris: JSON.stringify([...new Set(input.redirect_uris)]),
      scopes: [...new Set(input.scopes)].join(' '),
      public: isPublic ? 1 : 0,
      secret_hash: secret === null ? null : sha256(secret),
      secret_hint: secret === null ? null : secret.slice(-4),
      created_at: this.clock.now(),
      deleted_at: null,
    };
    this.repo.insertApp(row);
    return { app: toApp(row), clientSecret: secret };
  }

  listApps(workspaceId?: string): OAuthApp[] {
    return this.repo.apps(workspaceId).map(toApp);
  }

  getApp(clientId: string): OAuthApp {
    return toApp(this.mustGetApp(clientId));
  }

  findApp(clientId: string): OAuthApp | undefined {
    const row = this.repo.app(clientId);
    return row ? toApp(row) : undefined;
  }

  /** Deletes the app and revokes every grant and token it was given. */
  deleteApp(clientId: string): OAuthApp {
    const row = this.mustGetApp(clientId);
    const now = this.clock.now();
    this.db.transaction(() => {
      this.repo.deleteApp(row.id, now);
      this.repo.revokeApp(row.id, now);
    })();
    this.revoked();
    return toApp(row);
  }

  // ---- grants ----

  listGrants(filter: { clientId?: string; workspaceId?: string; includeRevoked?: boolean } = {}) {
    const counts = this.repo.activeTokenCounts(this.clock.now());
    const names = new Map(this.repo.apps().map((app) => [app.id, app.name]));
    return this.repo
      .grants()
      .filter(
        (grant) =>
          (!filter.clientId || grant.app_id === filter.clientId) &&
          (!filter.workspaceId || grant.workspace_id === filter.workspaceId) &&
          (filter.includeRevoked || grant.revoked_at === null),
      )
      .map((grant) => toGrant(grant, names.get(grant.app_id) ?? null, counts.get(grant.id) ?? 0));
  }

  revokeGrant(id: string): OAuthGrant {
    const grant = this.repo.grant(id);
    if (!grant) {
      throw new ApiError('not_found', `No grant ${id}. List them with: svc oauth grants list`, {
        param: 'id',
      });
    }
    this.revokeGrantNow(id, 'revoked by the operator');
    return this.listGrants({ includeRevoked: true }).find((g) => g.id === id)!;
  }

  // ---- authorization ----

  /** Checks GET (and the re-submitted POST) /oauth/authorize parameters, in RFC 6749's order. */
  checkAuthorize(params: Record<string, unknown>): AuthorizeCheck {
    const one = (name: string): string | undefined => {
      const value = params[name];
      return typeof value === 'string' && value !== '' ? value : undefined;
    };
    for (const [name, value] of Object.entries(params)) {
      if (Array.isArray(value)) {
        return { type: 'error_page', message: `The parameter ${name} is repeated.` };
      }
    }
    const clientId = one('client_id');
    if (!clientId) return { type: 'error_page', message: 'The request has no client_id.' };
    const row = this.repo.app(clientId);
    if (!row) {
      return {
        type: 'error_page',
        message: `No OAuth app has the client_id "${clientId}". The developer registers apps with: svc oauth apps create`,
      };
    }
    const app = toApp(row);
    const redirectUri = one('redirect_uri');
    if (!redirectUri) {
      return { type: 'error_page', message: 'The request has no redirect_uri.' };
    }
    if (!app.redirect_uris.includes(redirectUri)) {
      return {
        type: 'error_page',
        message: `The redirect_uri "${redirectUri}" is not registered for ${app.name}. Registered URIs must match exactly (scheme, host, port, path and query).`,
      };
    }
    const state = one('state');
    const fail = (
      error: 'invalid_request' | 'invalid_scope' | 'unsupported_response_type',
      description: string,
    ): AuthorizeCheck => ({ type: 'redirect_error', redirectUri, state, error, description });
    const responseType = one('response_type');
    if (!responseType) return fail('invalid_request', 'response_type is required (code).');
    if (responseType !== 'code') {
      return fail(
        'unsupported_response_type',
        'Only response_type=code (authorization code flow) is supported.',
      );
    }
    const scopeText = one('scope');
    let scopes: Scope[];
    if (scopeText === undefined) {
      scopes = app.scopes;
    } else {
      const parsed = parseScopes(scopeText.replace(/,/g, ' '));
      if (parsed.unknown.length > 0) {
        return fail('invalid_scope', `Unknown scope: ${parsed.unknown.join(' ')}.`);
      }
      const beyond = parsed.scopes.filter((scope) => !app.scopes.includes(scope));
      if (beyond.length > 0) {
        return fail(
          'invalid_scope',
          `The app is not registered for: ${beyond.join(' ')} (it may ask for ${app.scopes.join(' ')}).`,
        );
      }
      scopes = parsed.scopes;
    }
    if (scopes.length === 0) return fail('invalid_scope', 'The scope is empty.');
    const challenge = one('code_challenge');
    const method = one('code_challenge_method');
    if (challenge === undefined) {
      if (method !== undefined) {
        return fail('invalid_request', 'code_challenge_method was sent without code_challenge.');
      }
      if (app.public) {
        return fail(
          'invalid_request',
          'This is a public app: PKCE is required (code_challenge with code_challenge_method=S256).',
        );
      }
    } else {
      if (method !== 'S256') {
        return fail(
          'invalid_request',
          'code_challenge_method must be S256 (plain is not accepted).',
        );
      }
      if (!PKCE_CHALLENGE.test(challenge)) {
        return fail(
          'invalid_request',
          'code_challenge must be the base64url SHA-256 of the verifier (43 characters).',
        );
      }
    }
    return {
      type: 'ok',
      request: {
        app,
        redirectUri,
        scopes,
        state,
        codeChallenge: challenge,
        codeChallengeMethod: challenge === undefined ? undefined : 'S256',
      },
    };
  }

  /** The workspaces the local operator (the only user) can grant access to. */
  grantableWorkspaces() {
    return this.workspaces.list();
  }

  /** Consent given: a grant for the chosen workspace and a code bound to the whole request. */
  approve(request: AuthorizeRequest, workspaceId: string): string {
    const workspace = this.workspaces.get(workspaceId);
    if (!workspace || workspace.ownerId !== this.workspaces.operatorUser.id) {
      throw new ApiError('invalid_parameter', `No workspace ${workspaceId}.`, {
        param: 'workspace_id',
      });
    }
    const now = this.clock.now();
    const code = TOKEN_PREFIXES.code + randomBase62(40);
    const grant: GrantRow = {
      id: newId('oauthGrant'),
      app_id: request.app.client_id,
      user_id: this.workspaces.operatorUser.id,
      workspace_id: workspace.id,
      scopes: request.scopes.join(' '),
      created_at: now,
      last_used_at: null,
      revoked_at: null,
      revoked_reason: null,
    };
    this.db.transaction(() => {
      this.repo.insertGrant(grant);
      this.repo.insertCode({
        hash: sha256(code),
        grant_id: grant.id,
        app_id: request.app.client_id,
        redirect_uri: request.redirectUri,
        code_challenge: request.codeChallenge ?? null,
        code_challenge_method: request.codeChallengeMethod ?? null,
        scopes: grant.scopes,
        created_at: now,
        expires_at: now + CODE_TTL_MS,
        used_at: null,
      });
    })();
    return code;
  }

  // ---- client authentication ----

  /**
   * The app when the credentials prove it: a confidential app needs its secret; a public app
   * has none and must send none. Null otherwise (invalid_client).
   */
  authenticateClient(clientId: string, secret: string | undefined): OAuthApp | null {
    const row = this.repo.app(clientId);
    if (!row) return null;
    if (row.public === 1) return secret === undefined ? toApp(row) : null;
    if (secret === undefined || row.secret_hash === null) return null;
    const given = Buffer.from(sha256(secret));
    return timingSafeEqual(given, Buffer.from(row.secret_hash)) ? toApp(row) : null;
  }

  // ---- codes and tokens (used by the library's model) ----

  /**
   * The code row when it may still be exchanged. A code used before is reuse (RFC 9700 §4.5):
   * everything issued from it is revoked and the caller gets invalid_grant.
   */
  lookupCode(
    code: string,
  ): { type: 'ok'; row: CodeRow; grant: GrantRow } | { type: 'invalid' | 'reused' | 'expired' } {
    const row = this.repo.code(sha256(code));
    if (!row) return { type: 'invalid' };
    const grant = this.repo.grant(row.grant_id);
    if (!grant) return { type: 'invalid' };
    if (row.used_at !== null) {
      this.revokeGrantNow(grant.id, 'authorization code reused');
      return { type: 'reused' };
    }
    if (grant.revoked_at !== null) return { type: 'invalid' };
    if (row.expires_at <= this.clock.now()) return { type: 'expired' };
    return { type: 'ok', row, grant };
  }

  consumeCode(code: string): boolean {
    return this.repo.useCode(sha256(code), this.clock.now());
  }

  /**
   * The refresh token's row when it may still be used. A rotated-out token presented again is
   * reuse (RFC 9700 §4.14.2): the whole grant is revoked.
   */
  lookupRefreshToken(
    token: string,
  ): { type: 'ok'; row: TokenWithGrant } | { type: 'invalid' | 'reused' | 'expired' } {
    const row = this.repo.token(sha256(token));
    if (!row || row.kind !== 'refresh') return { type: 'invalid' };
    if (row.used_at !== null) {
      this.revokeGrantNow(row.grant_id, 'refresh token reused');
      return { type: 'reused' };
    }
    if (row.revoked_at !== null || row.grant_revoked_at !== null) return { type: 'invalid' };
    if (row.expires_at <= this.clock.now()) return { type: 'expired' };
    return { type: 'ok', row };
  }

  /** Rotates a refresh token out; false when someone else did first. */
  consumeRefreshToken(id: string): boolean {
    return this.repo.useToken(id, this.clock.now());
  }

  /**
   * Issues an access and a refresh token for a grant (code exchange and every refresh); null
   * when the grant was revoked meanwhile (e.g. a concurrent reuse of its code).
   */
  issueTokens(grantId: string, scopes: readonly string[]): IssuedTokens | null {
    const grant = this.repo.grant(grantId);
    if (!grant || grant.revoked_at !== null) return null;
    const now = this.clock.now();
    const accessToken = TOKEN_PREFIXES.access + randomBase62(40);
    const refreshToken = TOKEN_PREFIXES.refresh + randomBase62(40);
    const scopeText = scopes.join(' ');
    const base = { grant_id: grantId, app_id: grant.app_id, scopes: scopeText, created_at: now };
    const access: TokenRow = {
      ...base,
      id: newId('oauthToken'),
      kind: 'access',
      hash: sha256(accessToken),
      expires_at: now + ACCESS_TOKEN_TTL_MS,
      used_at: null,
      revoked_at: null,
    };
    const refresh: TokenRow = {
      ...base,
      id: newId('oauthToken'),
      kind: 'refresh',
      hash: sha256(refreshToken),
      expires_at: now + REFRESH_TOKEN_TTL_MS,
      used_at: null,
      revoked_at: null,
    };
    this.db.transaction(() => {
      this.repo.insertToken(access);
      this.repo.insertToken(refresh);
      this.repo.touchGrant(grantId, now);
    })();
    return {
      accessToken,
      refreshToken,
      accessExpiresAt: access.expires_at,
      refreshExpiresAt: refresh.expires_at,
      scopes: scopes.filter((scope): scope is Scope =>
        (SCOPES as readonly string[]).includes(scope),
      ),
      grantId,
    };
  }

  /**
   * RFC 7009: revokes a token issued to this client. A refresh token ends its whole grant (the
   * access tokens from it too); an access token ends alone. Unknown tokens are ignored.
   */
  revokeToken(app: OAuthApp, token: string): void {
    const row = this.repo.token(sha256(token));
    if (!row || row.app_id !== app.client_id) return;
    if (row.kind === 'refresh') this.revokeGrantNow(row.grant_id, 'refresh token revoked');
    else this.repo.revokeToken(row.id, this.clock.now());
    this.revoked();
  }

  /** The access token row for the credential layer (looked up by hash, cached there). */
  accessTokenByHash(hash: string): TokenWithGrant | undefined {
    const row = this.repo.token(hash);
    return row?.kind === 'access' ? row : undefined;
  }

  purgeExpired(): number {
    return this.repo.purge(this.clock.now() - 86_400_000);
  }

  private revokeGrantNow(grantId: string, reason: string): void {
    this.db.transaction(() => this.repo.revokeGrant(grantId, this.clock.now(), reason))();
    this.revoked();
  }

  private revoked(): void {
    this.hooks.run('credentialsChanged');
  }

  private mustGetApp(clientId: string): AppRow {
    const row = this.repo.app(clientId);
    if (!row) {
      throw new ApiError(
        'not_found',
        `No OAuth app ${clientId}. List them with: svc oauth apps list`,
        {
          param: 'client_id',
        },
      );
    }
    return row;
  }
}

function toApp(row: AppRow): OAuthApp {
  return {
    client_id: row.id,
    name: row.name,
    workspace_id: row.workspace_id,
    redirect_uris: JSON.parse(row.redirect_uris) as string[],
    scopes: row.scopes.split(' ').filter(Boolean) as Scope[],
    public: row.public === 1,
    token_endpoint_auth_method: row.public === 1 ? 'none' : 'client_secret_basic',
    client_secret_hint: row.secret_hint,
    created_at: row.created_at,
  };
}

function toGrant(row: GrantRow, appName: string | null, activeTokens: number): OAuthGrant {
  return {
    id: row.id,
    client_id: row.app_id,
    app_name: appName,
    user_id: row.user_id,
    workspace_id: row.workspace_id,
    scopes: row.scopes.split(' ').filter(Boolean) as Scope[],
    status: row.revoked_at === null ? 'active' : 'revoked',
    active_tokens: activeTokens,
    created_at: row.created_at,
    last_used_at: row.last_used_at,
    revoked_at: row.revoked_at,
    revoked_reason: row.revoked_reason,
  };
}
