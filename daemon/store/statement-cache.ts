// Statements whose SQL depends on optional filters are prepared once per shape and kept.
import type { Db, Statement } from './db.js';
import { prepareRows, type RowReader } from './object-rows.js';

export class StatementCache {
  private readonly statements = new Map<string, Statement>();
  private readonly readers = new Map<string, RowReader<unknown[], unknown>>();

  constructor(private readonly db: Db) {}

  get(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** A SELECT read as object rows built in JS (see object-rows.ts). */
  rows<R>(sql: string): RowReader<unknown[], R> {
    let reader = this.readers.get(sql);
    if (!reader) {
      reader = prepareRows(this.db, sql);
      this.readers.set(sql, reader);
    }
    return reader as RowReader<unknown[], R>;
  }
}
