// Writes whose results the caller does not read (no `changes`), sent late on PostgreSQL: inside
// a transaction they are queued and go with the transaction's next statement or its COMMIT, in
// one pipelined round trip (store/postgres/postgres-db.ts runLater), instead of one round trip
// each. On SQLite they are the statement's run(), at once (a write there costs no round trip).
//
// Only for writes whose failure nothing catches: an INSERT of a new id, an UPDATE by key, a
// counter added to. Their errors surface at the statement or COMMIT that carries them, and roll
// the whole transaction back as any error does (the group commit then runs each change alone,
// so the error still reaches the change that made it); a write whose error the code catches
// and turns into an answer (a unique name: 409) must stay a plain run().
import { storeKind, type Db } from './db.js';

export interface LaterWrite<P extends unknown[]> {
  run(...params: P): void;
}

/** What the PostgreSQL adapter's statements have beside run(). */
interface RunsLater {
  runLater(...params: unknown[]): void;
}

/** Prepares a write run through LaterWrite.run: sent late on PostgreSQL, at once on SQLite. */
export function prepareLaterWrite<P extends unknown[] = unknown[]>(
  db: Db,
  sql: string,
): LaterWrite<P> {
  const statement = db.prepare<P>(sql);
  if (storeKind(db) !== 'postgres') return statement;
  const later = statement as unknown as RunsLater;
  return { run: (...params) => later.runLater(...params) };
}
