// Turns a bearer credential into a Credential, or the spec's 401. Lookups go by the key's
// SHA-256 through a cache, so an authenticated request costs one hash and one map read.
import { timingSafeEqual } from 'node:crypto';
import type { Scope } from '../../shared/scopes.js';
import type { Clock } from '../clock/clock.js';
import { ApiError } from '../domain/errors.js';
import { hashKey, keyEnvironment, KEY_MARKERS, type Environment } from '../keys/key-material.js';
import type { KeyRepository, KeyRow } from '../keys/key.repository.js';
import type { Credential } from './credential.js';

const CACHE_LIMIT = 10_000;

interface CachedKey {
  row: KeyRow;
  credential: Credential;
}

export class CredentialService {
  private readonly cache = new Map<string, CachedKey | null>();

  constructor(
    private readonly keys: KeyRepository,
    private readonly clock: Clock,
    private readonly environment: Environment,
  ) {}

  invalidate(): void {
    this.cache.clear();
  }

  resolve(token: string): Credential {
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
    if (!found || !timingSafeEqual(Buffer.from(found.row.hash), Buffer.from(hash))) {
      throw new ApiError(
        'invalid_token',
        'The API key is not known to this daemon. Create one with: svc keys create',
      );
    }
    const { row, credential } = found;
    if (row.revoked_at !== null) {
      throw new ApiError(
        'invalid_token',
        `The API key ${row.id} was revoked. Create a new one with: svc keys create`,
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
    return credential;
  }

  private lookup(hash: string): CachedKey | null {
    const cached = this.cache.get(hash);
    if (cached !== undefined) return cached;
    const row = this.keys.byHash(hash);
    const entry = row ? { row, credential: toCredential(row) } : null;
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
