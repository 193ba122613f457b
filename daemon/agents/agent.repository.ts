// Agent rows. Deleted agents keep their row (deleted_at) so their executions stay explainable.
import type { ListQueryInput, Page } from '../domain/pages.js';
import { cacheRows, RowCache } from '../store/row-cache.js';
import { PendingCounters, type CounterDeferral } from '../store/commit-queue.js';
import type { Db } from '../store/db.js';
import { prepareLaterWrite } from '../store/later-writes.js';
import { ListQuery } from '../store/list-query.js';
import { prepareInsert } from '../store/object-rows.js';

export interface AgentRow {
  id: string;
  workspace_id: string;
  name: string;
  description: string | null;
  type: string;
  ontology: string;
  autonomy_level: string;
  status: 'active' | 'paused' | 'training' | 'archived';
  capabilities: string;
  guardrails: string;
  personality: string;
  brain: string | null;
  created_at: number;
  updated_at: number;
  last_active_at: number | null;
  deleted_at: number | null;
  stat_interactions: number;
  stat_finished: number;
  stat_succeeded: number;
  stat_timed: number;
  stat_time_ms: number;
}

/** What one interaction adds to an agent's running stats. */
export interface StatsDelta {
  interactions: number;
  finished: number;
  succeeded: number;
  timeMs: number | null;
}

/** What the stats UPDATE adds (and last_active_at). */
type StatsRow = {
  at: number;
  interactions: number;
  finished: number;
  succeeded: number;
  timed: number;
  time_ms: number;
};

export interface AgentListQuery {
  workspaceId: string;
  status?: string | undefined;
  type?: string | undefined;
}

export class AgentRepository {
  private readonly list: ListQuery<AgentRow, AgentListQuery>;
  /** Agents are read on every request about them: rows are kept until they are written. */
  private readonly rows: RowCache<AgentRow>;
  private readonly insertStmt;
  private readonly getStmt;
  private readonly updateStmt;
  private readonly deleteStmt;
  private readonly statsStmt;
  /** Stats added by a group commit's changes, written once at its end. */
  private readonly stats: PendingCounters<StatsRow>;

  /** `deferral`: the commit queue, so that stats are written once per group commit. */
  constructor(db: Db, deferral: CounterDeferral) {
    this.rows = new RowCache(cacheRows(db));
    this.list = new ListQuery(db, {
      table: 'agents',
      scope: { workspace_id: 'workspaceId', deleted_at: null },
      filters: { status: 'status', type: 'type' },
    });
    this.insertStmt = prepareInsert(
      db,
      'agents',
      'id, workspace_id, name, description, type, ontology, autonomy_level, status, capabilities, guardrails, personality, brain, created_at, updated_at',
    );
    this.getStmt = db.prepare<[string], AgentRow>(
      'SELECT * FROM agents WHERE id = ? AND deleted_at IS NULL',
    );
    this.updateStmt = db.prepare(
      `UPDATE agents SET name = @name, description = @description, type = @type, ontology = @ontology, autonomy_level = @autonomy_level,
         status = @status, capabilities = @capabilities, guardrails = @guardrails, personality = @personality, brain = @brain,
         updated_at = @updated_at WHERE id = @id`,
    );
    this.deleteStmt = db.prepare('UPDATE agents SET deleted_at = ? WHERE id = ?');
    // Running counters, updated in the same transaction as the interaction, so a GET stays one read
    // (sent with the transaction's COMMIT on PostgreSQL: store/later-writes.ts).
    this.statsStmt = prepareLaterWrite<[object]>(
      db,
      `UPDATE agents SET stat_interactions = stat_interactions + @interactions, stat_finished = stat_finished + @finished,
         stat_succeeded = stat_succeeded + @succeeded, stat_timed = stat_timed + @timed, stat_time_ms = stat_time_ms + @time_ms,
         last_active_at = @at WHERE id = @id`,
    );
    this.stats = new PendingCounters<StatsRow>(deferral, (id, stats) => {
      // A row read since the stats were added (in the same transaction) is behind again.
      this.rows.moveCounters(id);
      this.statsStmt.run({ id, ...stats });
    });
  }

  insert(row: Omit<AgentRow, 'last_active_at' | 'deleted_at' | `stat_${string}`>): void {
    this.insertStmt.run(row);
  }

  /** The row, the same object until the agent is written (callers must not mutate it). */
  get(id: string): AgentRow | undefined {
    return this.rows.get(id, () => this.getStmt.get(id));
  }

  /** The row for what the agent is configured to be: stat_* and last_active_at may lag. */
  configured(id: string): AgentRow | undefined {
    return this.rows.configured(id, () => this.getStmt.get(id));
  }

  update(row: AgentRow): void {
    this.rows.forget(row.id);
    this.updateStmt.run(row);
  }

  markDeleted(id: string, at: number): void {
    this.rows.forget(id);
    this.deleteStmt.run(at, id);
  }

  addStats(id: string, delta: StatsDelta, at: number): void {
    this.rows.moveCounters(id);
    this.stats.add(id, {
      at,
      interactions: delta.interactions,
      finished: delta.finished,
      succeeded: delta.succeeded,
      timed: delta.timeMs === null ? 0 : 1,
      time_ms: delta.timeMs ?? 0,
    });
  }

  page(query: AgentListQuery & ListQueryInput): Page<AgentRow> {
    return this.list.page(query);
  }
}
