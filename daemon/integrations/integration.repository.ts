// Integration rows.
import type { CursorPosition } from '../http/pagination.js';
import type { Db } from '../store/database.js';
import { KeysetList, where, type Where } from '../store/keyset-list.js';

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

export class IntegrationRepository {
  private readonly list: KeysetList<IntegrationRow>;
  private readonly insertStmt;
  private readonly getStmt;
  private readonly deleteStmt;
  private readonly positionStmt;

  constructor(db: Db) {
    this.list = new KeysetList<IntegrationRow>(db, 'integrations');
    this.insertStmt = db.prepare(
      `INSERT INTO integrations (id, workspace_id, provider, name, config, credentials, status, created_at, updated_at)
       VALUES (@id, @workspace_id, @provider, @name, @config, @credentials, @status, @created_at, @updated_at)`,
    );
    this.getStmt = db.prepare<[string, string], IntegrationRow>(
      'SELECT * FROM integrations WHERE id = ? AND workspace_id = ?',
    );
    this.deleteStmt = db.prepare('DELETE FROM integrations WHERE id = ?');
    this.positionStmt = db.prepare<[string, string], CursorPosition>(
      'SELECT created_at, id FROM integrations WHERE id = ? AND workspace_id = ?',
    );
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

  position(workspaceId: string, id: string): CursorPosition | undefined {
    return this.positionStmt.get(id, workspaceId);
  }

  page(
    workspaceId: string,
    provider: string | undefined,
    limit: number,
    cursor: CursorPosition | undefined,
  ): IntegrationRow[] {
    return this.list.page(this.filter(workspaceId, provider), limit, cursor);
  }

  count(workspaceId: string, provider: string | undefined): number {
    return this.list.count(this.filter(workspaceId, provider));
  }

  private filter(workspaceId: string, provider: string | undefined): Where {
    return where(['workspace_id = ?', workspaceId], provider && ['provider = ?', provider]);
  }

  /** Whether the workspace has connected this provider (for steps and actions that need it). */
  hasProvider(workspaceId: string, provider: string): boolean {
    return this.count(workspaceId, provider) > 0;
  }
}
