// Integration rows.
import type { ListQueryInput, Page } from '../domain/pages.js';
import type { Db } from '../store/db.js';
import { ListQuery } from '../store/list-query.js';
import { prepareInsert } from '../store/object-rows.js';

export interface IntegrationRow {
  id: string;
  workspace_id: string;
  provider: string;
  name: string;
  config: string;
  credentials: string | null;
  status: 'connected';
  created_at: number;
  updated_at: number;
}

export interface IntegrationListQuery {
  workspaceId: string;
  provider?: string | undefined;
}

export class IntegrationRepository {
  private readonly list: ListQuery<IntegrationRow, IntegrationListQuery>;
  private readonly insertStmt;
  private readonly getStmt;
  private readonly deleteStmt;

  constructor(db: Db) {
    this.list = new ListQuery(db, {
      table: 'integrations',
      scope: { workspace_id: 'workspaceId' },
      filters: { provider: 'provider' },
    });
    this.insertStmt = prepareInsert(
      db,
      'integrations',
      'id, workspace_id, provider, name, config, credentials, status, created_at, updated_at',
    );
    this.getStmt = db.prepare<[string, string], IntegrationRow>(
      'SELECT * FROM integrations WHERE id = ? AND workspace_id = ?',
    );
    this.deleteStmt = db.prepare('DELETE FROM integrations WHERE id = ?');
  }

  insert(row: IntegrationRow): void {
    this.insertStmt.run(row);
  }

  get(workspaceId: string, id: string): IntegrationRow | undefined {
    return this.getStmt.get(id, workspaceId);
  }

  delete(id: string): void {
    this.deleteStmt.run(id);
  }

  page(query: IntegrationListQuery & ListQueryInput): Page<IntegrationRow> {
    return this.list.page(query);
  }
}
