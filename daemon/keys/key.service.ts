// API keys: create (shown once), list, revoke, rotate with a grace period, and the operator
// key the CLI uses. Any change drops the credential cache so it takes effect at once.
import { createHash } from 'node:crypto';
import { newId } from '../../shared/ids.js';
import type { Scope } from '../../shared/scopes.js';
import type { Clock } from '../time/clock.js';
import { ApiError } from '../domain/errors.js';
import type { Transactions } from '../domain/transactions.js';
import type { WorkspaceService } from '../workspaces/workspace.service.js';
import type { Environment } from '../domain/environment.js';
import type { Hooks } from '../domain/hooks.js';
import { generateKey, hashKey } from './key-material.js';
import type { KeyRepository, KeyRow } from './key.repository.js';
import { KeyUsage } from './key-usage.js';

export const DEFAULT_ROTATION_GRACE_MS = 24 * 3_600_000;

export interface KeyRecord {
  id: string;
  name: string;
  scopes: Scope[];
  workspace_id: string | null;
  environment: Environment;
  hint: string;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
  rotated_to: string | null;
  /** The last request authenticated with the key (daemon clock); null: never. */
  last_used_at: number | null;
}

export interface CreateKeyInput {
  name: string;
  scopes: Scope[];
  workspaceId?: string | undefined;
  expiresInMs?: number | undefined;
}

/** What KeyService is built from (app/services.ts passes them by name). */
export interface KeyServiceDeps {
  db: Transactions;
  repo: KeyRepository;
  workspaces: WorkspaceService;
  clock: Clock;
  environment: Environment;
  /** credentialsChanged, after any key is created, revoked or rotated (domain/hooks.ts). */
  hooks: Pick<Hooks, 'run'>;
  /**
   * Team mode: whose operator key this daemon mints (its host and data dir, operatorOwner). Each
   * daemon's CLI then has an operator key of its own, and a start replaces only the key of its
   * own data dir, as a start alone on SQLite replaces the one key there: one daemon's start
   * must not revoke the key another daemon's CLI holds.
   */
  operatorOwner?: string | undefined;
}

export class KeyService {
  private operatorKey: string | undefined;
  /** When each key was last used (authentication records it; never a write per request). */
  readonly usage: KeyUsage;

  private readonly db: Transactions;
  private readonly repo: KeyRepository;
  private readonly workspaces: WorkspaceService;
  private readonly clock: Clock;
  private readonly environment: Environment;
  private readonly hooks: Pick<Hooks, 'run'>;
  private readonly operatorOwner: string | undefined;

  constructor(deps: KeyServiceDeps) {
    this.db = deps.db;
    this.repo = deps.repo;
    this.workspaces = deps.workspaces;
    this.clock = deps.clock;
    this.environment = deps.environment;
    this.hooks = deps.hooks;
    this.operatorOwner = deps.operatorOwner;
    this.usage = new KeyUsage(deps.db, deps.repo);
  }

  create(input: CreateKeyInput): { key: string; record: KeyRecord } {
    const workspaceId = this.workspaces.existingId(input.workspaceId, 'workspace');
    if (input.scopes.length === 0) {
      throw new ApiError('missing_required_field', 'A key needs at least one scope.', {
        param: 'scopes',
        extras: { required_fields: ['scopes'] },
      });
    }
    const now = this.clock.now();
    const key = generateKey(this.environment);
    const row = this.row(key, {
      kind: 'standard',
      name: input.name,
      scopes: input.scopes,
      workspaceId,
      createdAt: now,
      expiresAt: input.expiresInMs === undefined ? null : now + input.expiresInMs,
    });
    this.repo.insert(row);
    this.changed();
    return { key, record: this.toRecord(row) };
  }

  /**
   * The API keys (of a workspace, or all). Team mode, all: with the operator keys of the
   * sandbox's other data dirs, so that one whose data dir never comes back can be revoked (svc
   * keys revoke ID); never this daemon's own, which its CLI uses.
   */
  list(workspaceId?: string): KeyRecord[] {
    const rows = this.repo.list(workspaceId);
    if (this.operatorOwner !== undefined && workspaceId === undefined) {
      rows.push(...this.repo.otherOperatorKeys(operatorKeyName(this.operatorOwner)));
    }
    return rows.map((row) => this.toRecord(row));
  }

  /** A standard key; in team mode also another data dir's operator key (as list() shows it). */
  revoke(id: string): KeyRecord {
    const row = this.mustGet(id, { otherOperators: true });
    this.repo.revoke(id, this.clock.now());
    this.changed();
    return this.toRecord(this.mustGet(row.id, { otherOperators: true }));
  }

  /** Issues a successor with the same name, scopes and workspace; the old key lives on for the grace period. */
  rotate(
    id: string,
    graceMs = DEFAULT_ROTATION_GRACE_MS,
  ): { key: string; record: KeyRecord; previous: KeyRecord } {
    const old = this.mustGet(id);
    const now = this.clock.now();
    if (old.revoked_at !== null || (old.expires_at !== null && old.expires_at <= now)) {
      throw new ApiError(
        'conflict',
        `Key ${id} is revoked or expired and cannot be rotated. Create a new one: svc keys create`,
      );
    }
    const key = generateKey(this.environment);
    const lifetime = old.expires_at === null ? null : old.expires_at - old.created_at;
    const row = this.row(key, {
      kind: 'standard',
      name: old.name,
      scopes: old.scopes.split(' ') as Scope[],
      workspaceId: old.workspace_id,
      createdAt: now,
      expiresAt: lifetime === null ? null : now + lifetime,
    });
    const graceEnd = Math.min(now + graceMs, old.expires_at ?? Number.MAX_SAFE_INTEGER);
    this.db.transaction(() => {
      this.repo.insert(row);
      this.repo.markRotated(old.id, graceEnd, row.id);
    })();
    this.changed();
    return { key, record: this.toRecord(row), previous: this.toRecord(this.mustGet(id)) };
  }

  /**
   * The local operator credential: admin on every workspace of the operator. A new one is
   * made at each daemon start and handed out only over the control channel.
   */
  operatorCredential(): string {
    if (this.operatorKey) return this.operatorKey;
    const key = generateKey(this.environment);
    const name = operatorKeyName(this.operatorOwner);
    this.db.transaction(() => {
      this.repo.deleteOperatorKeys(this.operatorOwner === undefined ? undefined : name);
      this.repo.insert(
        this.row(key, {
          kind: 'operator',
          name,
          scopes: ['admin'],
          workspaceId: null,
          createdAt: this.clock.now(),
          expiresAt: null,
        }),
      );
    })();
    this.operatorKey = key;
    this.changed();
    return key;
  }

  private row(
    key: string,
    fields: {
      kind: KeyRow['kind'];
      name: string;
      scopes: Scope[];
      workspaceId: string | null;
      createdAt: number;
      expiresAt: number | null;
    },
  ): KeyRow {
    return {
      id: newId('key'),
      kind: fields.kind,
      user_id: this.workspaces.operatorUser.id,
      workspace_id: fields.workspaceId,
      name: fields.name,
      hash: hashKey(key),
      hint: key.slice(-4),
      scopes: fields.scopes.join(' '),
      environment: this.environment,
      created_at: fields.createdAt,
      expires_at: fields.expiresAt,
      revoked_at: null,
      rotated_to: null,
      last_used_at: null,
    };
  }

  private mustGet(id: string, options: { otherOperators?: boolean } = {}): KeyRow {
    const row = this.repo.byId(id);
    const otherOperator =
      options.otherOperators === true &&
      row?.kind === 'operator' &&
      this.operatorOwner !== undefined &&
      row.name !== operatorKeyName(this.operatorOwner);
    if (!row || (row.kind !== 'standard' && !otherOperator)) {
      throw new ApiError('not_found', `No API key ${id}. List them with: svc keys list`, {
        param: 'id',
      });
    }
    return row;
  }

  private changed(): void {
    this.hooks.run('credentialsChanged');
  }

  private toRecord(row: KeyRow): KeyRecord {
    return toRecord(row, this.usage.lastUsed(row.id, row.last_used_at));
  }
}

function toRecord(row: KeyRow, lastUsedAt: number | null): KeyRecord {
  return {
    id: row.id,
    name: row.name,
    scopes: row.scopes.split(' ').filter(Boolean) as Scope[],
    workspace_id: row.workspace_id,
    environment: row.environment,
    hint: row.hint,
    created_at: row.created_at,
    expires_at: row.expires_at,
    revoked_at: row.revoked_at,
    rotated_to: row.rotated_to,
    last_used_at: lastUsedAt,
  };
}

/** The operator key's name: its owner's in team mode, so that each replaces only its own. */
export function operatorKeyName(owner?: string): string {
  return owner === undefined ? 'Local operator (CLI)' : `Local operator (CLI) of ${owner}`;
}

/**
 * Team mode: the owner of a daemon's operator key, stable across its restarts (its daemon id is
 * new at each start): its host and a digest of its data dir's path.
 */
export function operatorOwner(host: string, dataDir: string): string {
  const digest = createHash('sha256').update(`${host}\0${dataDir}`).digest('hex').slice(0, 12);
  return `${host}/${digest}`;
}
