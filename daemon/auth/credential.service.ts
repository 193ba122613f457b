// Turns a bearer credential (API key or OAuth access token) into a Credential, or the spec's
// 401. Lookups go by SHA-256 through a cache, so an authenticated request costs one hash and
// one map read whichever kind it is.
import { timingSafeEqual } from 'node:crypto';
import type { Scope } from '../../shared/scopes.js';
import type { Clock } from '../time/clock.js';
import { ApiError } from '../domain/errors.js';
import type { Environment } from '../domain/environment.js';
import { hashKey, keyEnvironment, KEY_MARKERS } from '../keys/key-material.js';
import type { KeyRepository, KeyRow } from '../keys/key.repository.js';
import type { KeyUsage } from '../keys/key-usage.js';
import type { Credential } from '../domain/credential.js';

const CACHE_LIMIT = 10_000;

interface CachedKey {
  row: KeyRow;
  credential: Credential;
  /** The stored hash's bytes, for the constant-time comparison (made once per cached key). */
  hashBytes: Buffer;
}

/** An OAuth access token as the credential layer needs it (daemon/oauth provides it). */
export interface AccessTokenRow {
  id: string;
  grant_id: string;
  user_id: string;
  workspace_id: string;
  scopes: string;
  expires_at: number;
  revoked_at: number | null;
  grant_revoked_at: number | null;
}

interface CachedToken {
  row: AccessTokenRow;
  credential: Credential;
}

/** Access tokens start with this; nothing else the daemon accepts does. */
export const ACCESS_TOKEN_PREFIX = 'svc_at_';

/** What CredentialService is built from (app/services.ts passes them by name). */
export interface CredentialServiceDeps {
  keys: KeyRepository;
  clock: Clock;
  environment: Environment;
  usage: Pick<KeyUsage, 'used'>;
  /** OAuth access tokens by hash (oauth/oauth.service.ts); without it, only API keys are let in. */
  accessTokens?: ((hash: string) => AccessTokenRow | undefined) | undefined;
}

export class CredentialService {
  private readonly cache = new Map<string, CachedKey | null>();
  private readonly tokenCache = new Map<string, CachedToken | null>();

  private readonly keys: KeyRepository;
  private readonly clock: Clock;
  private readonly environment: Environment;
  private readonly usage: Pick<KeyUsage, 'used'>;
  private readonly accessTokens: ((hash: string) => AccessTokenRow | undefined) | undefined;

  constructor(deps: CredentialServiceDeps) {
    this.keys = deps.keys;
    this.clock = deps.clock;
    this.environment = deps.environment;
    this.usage = deps.usage;
    this.accessTokens = deps.accessTokens;
  }

  /** Drops every cached credential (credentialsChanged: a key or token changed). */
  invalidate(): void {
    this.cache.clear();
    this.tokenCache.clear();
  }

  resolve(token: string): Credential {
    if (this.accessTokens && token.startsWith(ACCESS_TOKEN_PREFIX)) return this.resolveToken(token);
    const marked = keyEnvironment(token);
    if (marked === undefined) {
      throw new ApiError(
        'invalid_token',
        `The credential is not an API key of this service. Send "Authorization: Bearer ${KEY_MARKERS[this.environment]}..."; create a key with: svc keys create`,
      );
    }
    if (marked !== this.environment) {
      throw new ApiError(
        'invalid_token',
        `This is a ${marked} key (${KEY_MARKERS[marked]}) but this daemon runs the ${this.environment} environment, which takes ${KEY_MARKERS[this.environment]} keys only.`,
      );
    }
    const hash = hashKey(token);
    const found = this.lookup(hash);
    if (!found || !timingSafeEqual(found.hashBytes, Buffer.from(hash, 'hex'))) {
      throw new ApiError(
        'invalid_token',
        'The API key is not known to this daemon. Create one with: svc keys create',
      );
    }
    const { row, credential } = found;
    if (row.revoked_at !== null) {
      throw new ApiError(
        'invalid_token',
        row.kind === 'operator'
          ? operatorKeyRevoked(row)
          : `The API key ${row.id} was revoked. Create a new one with: svc keys create`,
      );
    }
    if (row.expires_at !== null && row.expires_at <= this.clock.now()) {
      const expiresAt = new Date(row.expires_at).toISOString();
      throw new ApiError(
        'invalid_token',
        `The API key ${row.id} expired at ${expiresAt}.${row.rotated_to ? ` It was rotated to ${row.rotated_to}.` : ''} Use a current key.`,
        { extras: { expires_at: expiresAt } },
      );
    }
    // A standard key acts in the one workspace it was created in. svc never makes one without;
    // one in the store came from outside (a tampered snapshot) and would act in every workspace
    // its user owns, those created later included (issue 51).
    if (row.kind === 'standard' && row.workspace_id === null) {
      throw new ApiError(
        'invalid_token',
        `The API key ${row.id} belongs to no workspace, so it is not valid anywhere. Create one in a workspace with: svc keys create`,
      );
    }
    // In memory only: stored with the others at most once a minute (keys/key-usage.ts).
    if (row.kind === 'standard') this.usage.used(row.id, this.clock.now());
    return credential;
  }

  private resolveToken(token: string): Credential {
    const hash = hashKey(token);
    const found = this.lookupToken(hash);
    if (!found) {
      throw new ApiError(
        'invalid_token',
        'The OAuth access token is not known to this daemon. Get one through the authorization code flow (/oauth/authorize, then POST /v1/oauth/token).',
      );
    }
    const { row, credential } = found;
    if (row.revoked_at !== null || row.grant_revoked_at !== null) {
      throw new ApiError(
        'invalid_token',
        `The OAuth access token was revoked (grant ${row.grant_id}). Authorize the app again.`,
      );
    }
    if (row.expires_at <= this.clock.now()) {
      const expiresAt = new Date(row.expires_at).toISOString();
      throw new ApiError(
        'invalid_token',
        `The OAuth access token expired at ${expiresAt}. Get a new one with the refresh token (grant_type=refresh_token).`,
        { extras: { expires_at: expiresAt } },
      );
    }
    return credential;
  }

  private lookupToken(hash: string): CachedToken | null {
    const cached = this.tokenCache.get(hash);
    if (cached !== undefined) return cached;
    const row = this.accessTokens!(hash);
    const entry: CachedToken | null = row
      ? {
          row,
          credential: {
            type: 'oauth',
            id: row.grant_id,
            userId: row.user_id,
            workspaceId: row.workspace_id,
            scopes: new Set(row.scopes.split(' ').filter(Boolean) as Scope[]),
            environment: this.environment,
            expiresAt: row.expires_at,
          },
        }
      : null;
    if (this.tokenCache.size >= CACHE_LIMIT) this.tokenCache.clear();
    this.tokenCache.set(hash, entry);
    return entry;
  }

  private lookup(hash: string): CachedKey | null {
    const cached = this.cache.get(hash);
    if (cached !== undefined) return cached;
    const row = this.keys.byHash(hash);
    const entry = row
      ? { row, credential: toCredential(row), hashBytes: Buffer.from(row.hash, 'hex') }
      : null;
    if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
    this.cache.set(hash, entry);
    return entry;
  }
}

function toCredential(row: KeyRow): Credential {
  return {
    type: row.kind === 'operator' ? 'operator' : 'api_key',
    id: row.id,
    userId: row.user_id,
    workspaceId: row.workspace_id,
    scopes: new Set(row.scopes.split(' ').filter(Boolean) as Scope[]),
    environment: row.environment,
    expiresAt: row.expires_at,
  };
}

/**
 * Team mode: another daemon's `svc keys revoke` of the operator key a live data dir's CLI uses.
 * That CLI never uses a key from svc keys create, and its daemon keeps handing out the revoked
 * key until it starts again, when it makes a new one (keys/key.service.ts operatorCredential).
 */
function operatorKeyRevoked(row: { id: string; name: string }): string {
  return (
    `The API key ${row.id} was revoked: it is the operator credential "${row.name}", which the ` +
    `CLI of that data dir uses, so a key from svc keys create will not let that CLI in. Its daemon ` +
    `makes a new one when it starts: on that machine, run svc daemon stop, then svc daemon start ` +
    `with the options it was started with (--store, --sandbox, --secret-key-file).`
  );
}
