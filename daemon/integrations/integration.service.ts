// Integrations: connect (credentials stored sealed with the data dir's SecretBox, never
// returned) and disconnect, each emitting its event in the same transaction as the change.
import { newId } from '../../shared/ids.js';
import type { IntegrationView } from '../../shared/schemas/integrations.js';
import { toIso, type Clock } from '../time/clock.js';
import type { EventService } from '../events/event.service.js';
import { ApiError } from '../domain/errors.js';
import { pick } from '../domain/views.js';
import { mapPage, type ListQueryInput, type Page } from '../domain/pages.js';
import type { Transactions } from '../domain/transactions.js';
import type { SecretBox } from '../platform/secret-box.js';
import type { IntegrationRepository, IntegrationRow } from './integration.repository.js';

export interface ConnectInput {
  provider: string;
  name?: string | undefined;
  config?: Record<string, unknown> | undefined;
  credentials?: Record<string, string> | undefined;
}

/** What IntegrationService is built from (app/services.ts passes them by name). */
export interface IntegrationServiceDeps {
  db: Transactions;
  repo: IntegrationRepository;
  events: EventService;
  clock: Clock;
  /** Credentials are stored sealed; nothing reads them back yet (they are never returned). */
  secretBox: SecretBox;
}

export class IntegrationService {
  private readonly db: Transactions;
  private readonly repo: IntegrationRepository;
  private readonly events: EventService;
  private readonly clock: Clock;
  /** Credentials are stored sealed; nothing reads them back yet (they are never returned). */
  private readonly secretBox: SecretBox;

  constructor(deps: IntegrationServiceDeps) {
    this.db = deps.db;
    this.repo = deps.repo;
    this.events = deps.events;
    this.clock = deps.clock;
    this.secretBox = deps.secretBox;
  }

  connect(workspaceId: string, input: ConnectInput): IntegrationView {
    const now = this.clock.now();
    const row: IntegrationRow = {
      id: newId('integration'),
      workspace_id: workspaceId,
      provider: input.provider,
      name: input.name ?? input.provider,
      config: JSON.stringify(input.config ?? {}),
      // {} holds no credential: stored as none, so has_credentials says false.
      credentials:
        input.credentials && Object.keys(input.credentials).length > 0
          ? this.secretBox.seal(JSON.stringify(input.credentials))
          : null,
      status: 'connected',
      created_at: now,
      updated_at: now,
    };
    const view = toIntegrationView(row);
    this.db.transaction(() => {
      this.repo.insert(row);
      this.events.publish(workspaceId, 'integration.connected', view);
    })();
    return view;
  }

  get(workspaceId: string, id: string): IntegrationView {
    return toIntegrationView(this.row(workspaceId, id));
  }

  list(
    workspaceId: string,
    query: ListQueryInput & { provider?: string | undefined },
  ): Page<IntegrationView> {
    return mapPage(this.repo.page({ ...query, workspaceId }), toIntegrationView);
  }

  disconnect(workspaceId: string, id: string): { id: string; deleted: true } {
    const row = this.row(workspaceId, id);
    this.db.transaction(() => {
      this.repo.delete(row.id);
      this.events.publish(workspaceId, 'integration.disconnected', {
        id: row.id,
        provider: row.provider,
      });
    })();
    return { id: row.id, deleted: true };
  }

  private row(workspaceId: string, id: string): IntegrationRow {
    const row = this.repo.get(workspaceId, id);
    if (!row)
      throw new ApiError('not_found', `No integration ${id} in this workspace.`, {
        param: 'integration_id',
      });
    return row;
  }
}

function toIntegrationView(row: IntegrationRow): IntegrationView {
  return {
    ...pick(row, ['id', 'workspace_id', 'provider', 'name', 'status']),
    config: JSON.parse(row.config) as Record<string, unknown>,
    has_credentials: row.credentials !== null,
    created_at: toIso(row.created_at),
    updated_at: toIso(row.updated_at),
  };
}
