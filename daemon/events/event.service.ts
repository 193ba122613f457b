// The event log's one way in. Services publish here; the event is stored, and in the same
// transaction every eventStored listener (domain/hooks.ts: webhook deliveries, event triggers)
// stores its own rows, so an accepted event is never lost between the log and its consumers.
// Followers hear of it after the commit (eventPublished, failurePublished).
import { typePatternProblem } from '../../shared/event-type-patterns.js';
import { newId } from '../../shared/ids.js';
import { isEventType, type EventEnvelope, type EventType } from '../../shared/schemas/events.js';
import { toIso, type Clock } from '../time/clock.js';
import { invalidParameter } from '../domain/errors.js';
import { JsonText, mapPage, type ListQueryInput, type Page } from '../domain/pages.js';
import type { Transactions } from '../domain/transactions.js';
import type { Hooks } from '../domain/hooks.js';
import type { CommitQueue } from '../store/commit-queue.js';
import { ALONE, type TeamNotices } from '../store/team-notices.js';
import type { EventFilter, EventRepository, EventRow } from './event.repository.js';

/** The group commit an event of its own joins. */
export type GroupCommits = Pick<CommitQueue, 'run'>;

export const EVENT_RETENTION_MS = 30 * 86_400_000;

/**
 * The events that report failed or cancelled work (failurePublished), and which of their
 * events do: a step_completed only when the step failed (most of them completed).
 */
const FAILURES: Partial<Record<EventType, (data: Record<string, unknown>) => boolean>> = {
  'workflow.execution.step_completed': (data) => data.status === 'failed',
  'workflow.execution.failed': () => true,
  'agent.execution.failed': () => true,
};

function reportsFailure(type: EventType, data: Record<string, unknown>): boolean {
  return FAILURES[type]?.(data) ?? false;
}

/** What EventService is built from (app/services.ts passes them by name). */
export interface EventServiceDeps {
  db: Transactions;
  repo: EventRepository;
  clock: Clock;
  commits: GroupCommits;
  /** eventStored (inside), eventPublished and failurePublished (after): domain/hooks.ts. */
  hooks: Hooks;
  /** Team mode: each event is told to the other daemons, and theirs published here. */
  notices?: TeamNotices;
}

export class EventService {
  private readonly db: Transactions;
  private readonly repo: EventRepository;
  private readonly clock: Clock;
  private readonly commits: GroupCommits;
  private readonly hooks: Hooks;
  private readonly notices: TeamNotices;

  constructor(deps: EventServiceDeps) {
    this.db = deps.db;
    this.repo = deps.repo;
    this.clock = deps.clock;
    this.commits = deps.commits;
    this.hooks = deps.hooks;
    this.notices = deps.notices ?? ALONE;
    this.notices.on('event', (payload) => this.heard(payload));
  }

  /**
   * An event another daemon committed: its live listeners here hear it (its fan-out was
   * stored with it there, and is not made again). Read only when someone here listens.
   */
  private heard(payload: string): void {
    const [workspaceId, id, type] = payload.split(' ');
    if (!workspaceId || !id || !type || !isEventType(type)) return;
    if (!this.hooks.has('eventPublished') && !this.hooks.has('failurePublished')) return;
    const event = this.get(workspaceId, id);
    if (event) this.notify(event);
  }

  /** Stores an event and its fan-out atomically. Call it inside the caller's transaction when the event belongs to a change. */
  publish(workspaceId: string, type: EventType, data: Record<string, unknown>): EventEnvelope {
    const { event, store } = this.prepare(workspaceId, type, data);
    if (this.db.inTransaction) {
      // Part of the caller's change: its transaction makes it atomic (and may still roll back,
      // so listeners hear of the event only once it is settled).
      store();
      if (this.followed(type, data)) queueMicrotask(() => this.notifyIfStored(event));
    } else {
      this.db.transaction(store)();
      this.notify(event);
    }
    return event;
  }

  /**
   * An event of its own, not part of a change (svc events trigger): stored with the next group
   * commit (CommitQueue), so that many published at once share one commit; resolves once it is
   * committed. Measured on the delivery bench (32 publishes in flight): a commit per event was
   * a tenth of the daemon's time.
   */
  async publishAlone(
    workspaceId: string,
    type: EventType,
    data: Record<string, unknown>,
  ): Promise<EventEnvelope> {
    const { event, store } = this.prepare(workspaceId, type, data);
    await this.commits.run(store);
    this.notify(event);
    return event;
  }

  /** The envelope, and the work that stores it and its fan-out (inside a transaction). */
  private prepare(workspaceId: string, type: EventType, data: Record<string, unknown>) {
    const createdAt = this.clock.now();
    const event: EventEnvelope = {
      id: newId('event'),
      type,
      created_at: toIso(createdAt),
      workspace_id: workspaceId,
      data,
    };
    const json = JSON.stringify(event);
    const store = () => {
      this.repo.insert({
        id: event.id,
        workspace_id: workspaceId,
        type,
        created_at: createdAt,
        execution_id: runOf(type, data),
        envelope: json,
      });
      // Fan-out: what must follow from the event is stored in its transaction.
      this.hooks.run('eventStored', event, json);
      this.notices.notify('event', `${workspaceId} ${event.id} ${type}`);
    };
    return { event, store };
  }

  get(workspaceId: string, id: string): EventEnvelope | undefined {
    const row = this.repo.get(workspaceId, id, this.retentionCutoff());
    return row && toEnvelope(row);
  }

  /** A page of events as JSON text: the stored data is sent as it was stored, never re-parsed. */
  list(workspaceId: string, query: ListQueryInput & { type?: string | undefined }): Page<JsonText> {
    const filter: EventFilter = {
      workspaceId,
      since: this.retentionCutoff(),
      ...parseTypeFilter(query.type),
    };
    return mapPage(this.repo.page({ ...query, ...filter }), toEnvelopeJson);
  }

  /**
   * The events run `executionId` published (workflow.execution.*), oldest first, `limit` at a
   * time after the event `after` (the run page's history). Through events_by_execution: a run's
   * own events only, however many the store holds.
   */
  ofRun(
    workspaceId: string,
    executionId: string,
    query: { after?: string | undefined; limit: number },
  ): { items: EventEnvelope[]; hasMore: boolean } {
    const rows = this.repo.ofRun(
      workspaceId,
      executionId,
      this.retentionCutoff(),
      query.limit + 1,
      query.after,
    );
    if (!rows) {
      throw invalidParameter(
        'after',
        `${query.after} is not an event of run ${executionId}: give the id of the last event shown.`,
      );
    }
    return {
      items: rows.slice(0, query.limit).map((row) => toEnvelope(row)),
      hasMore: rows.length > query.limit,
    };
  }

  /** Deletes events past the 30-day retention on the daemon clock. */
  purgeExpired(): number {
    return this.repo.purgeBefore(this.retentionCutoff());
  }

  private retentionCutoff(): number {
    return this.clock.now() - EVENT_RETENTION_MS;
  }

  private notifyIfStored(event: EventEnvelope): void {
    if (this.repo.exists(event.workspace_id, event.id)) this.notify(event);
  }

  /** Whether anyone hears of this event once committed (else its commit is not looked up). */
  private followed(type: EventType, data: Record<string, unknown>): boolean {
    return (
      this.hooks.has('eventPublished') ||
      (this.hooks.has('failurePublished') && reportsFailure(type, data))
    );
  }

  private notify(event: EventEnvelope): void {
    this.hooks.run('eventPublished', event);
    if (reportsFailure(event.type, event.data)) this.hooks.run('failurePublished', event);
  }
}

/** The run a workflow.execution.* event belongs to (its history's key); null for the others. */
function runOf(type: EventType, data: Record<string, unknown>): string | null {
  if (!type.startsWith('workflow.execution.')) return null;
  return typeof data.execution_id === 'string' ? data.execution_id : null;
}

function toEnvelope(row: Pick<EventRow, 'envelope'>): EventEnvelope {
  return JSON.parse(row.envelope) as EventEnvelope;
}

function toEnvelopeJson(row: Pick<EventRow, 'envelope'>): JsonText {
  return new JsonText(row.envelope);
}

/** "agent.created,workflow.*" -> exact types and prefixes; unknown types are refused. */
export function parseTypeFilter(text: string | undefined): { types: string[]; prefixes: string[] } {
  const types: string[] = [];
  const prefixes: string[] = [];
  for (const word of (text ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    const problem = typePatternProblem(word);
    if (problem) throw invalidParameter('type', `'${word}' ${problem}.`);
    if (word.endsWith('*')) prefixes.push(word.slice(0, -1));
    else if (isEventType(word)) types.push(word);
    else
      throw invalidParameter(
        'type',
        `Unknown event type '${word}'. Use one of the documented types, or a prefix such as agent.*`,
      );
  }
  return { types, prefixes };
}
