// Statements whose SQL depends on optional filters are prepared once per shape and kept.
import type { Statement } from 'better-sqlite3';
import type { Db } from './database.js';

export class StatementCache {
  private readonly statements = new Map<string, Statement>();

  constructor(private readonly db: Db) {}

  get(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }
}
