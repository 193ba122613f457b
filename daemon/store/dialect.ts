// What the SQL of the two stores cannot say the same way, asked by the modules that hold SQL.
// Everything else is written once, in the subset SQLite and PostgreSQL share (ON CONFLICT,
// COALESCE, row values, CASE); the PostgreSQL adapter only turns `?` into `$n`.
import { storeKind, type Db } from './db.js';

/**
 * The limit of a statement whose limit is a parameter. SQLite (3.46 on) plans a bare `LIMIT ?`
 * with the bound value, and then re-prepares the statement (parse and plan again) every time
 * that parameter is bound, which better-sqlite3 does on every run, even with the same value.
 * `+?` is the same limit but not a bare parameter, so the plan is made once. Measured on the
 * events list (GET /v1/events?limit=20): the re-prepare was a third of its query's time.
 * PostgreSQL plans a named statement once per connection either way.
 */
export function limitParam(db: Db): string {
  return storeKind(db) === 'sqlite' ? 'LIMIT +?' : 'LIMIT ?';
}

/** The rows of one parameter bound as a JSON array of strings, as a one-column set `value`. */
export function jsonArrayValues(db: Db): string {
  return storeKind(db) === 'sqlite'
    ? 'SELECT value FROM json_each(?)'
    : 'SELECT value FROM json_array_elements_text(CAST(? AS json)) AS value';
}

/**
 * `column` in a condition that must not be served from its index: SQLite's unary `+` (a plan
 * hint it reads as the same value); PostgreSQL's planner weighs its indexes by statistics.
 */
export function notIndexed(db: Db, column: string): string {
  return storeKind(db) === 'sqlite' ? `+${column}` : column;
}

/** A full-text search of the knowledge passages of an agent (see passageSearch). */
export interface PassageSearch {
  /** Rows heading, text, document_id, covered: the passages with most words first. */
  sql: string;
  params(agentId: string, words: readonly string[], limit: number): unknown[];
}

/**
 * The passages of an agent that contain the most of `words` (each matched as a prefix of a
 * stemmed word, in the heading or the text), best first; ties go to the better rank, where the
 * heading weighs twice the text. SQLite: FTS5 (porter over unicode61), each word an FTS5 phrase
 * matched on its own (json_each) to count the words a passage covers, ties by bm25. PostgreSQL:
 * the passages' tsvector (Snowball English, heading weight A, text B, schema-024.ts), each word
 * a prefix tsquery, ties by ts_rank, then by the order stored.
 */
export function passageSearch(db: Db): PassageSearch {
  if (storeKind(db) === 'sqlite') {
    return {
      sql: `WITH hits AS (
         SELECT p.rowid AS id, COUNT(*) AS covered
         FROM json_each(?) AS term JOIN knowledge_passages AS p ON knowledge_passages MATCH term.value
         WHERE p.agent_id = ? GROUP BY p.rowid)
       SELECT p.heading, p.text, p.document_id, hits.covered
       FROM knowledge_passages AS p JOIN hits ON hits.id = p.rowid
       WHERE knowledge_passages MATCH ? AND p.agent_id = ?
       ORDER BY hits.covered DESC, bm25(knowledge_passages, 2.0, 1.0)
       LIMIT ?`,
      params: (agentId, words, limit) => {
        const phrases = words.map((word) => `"${word.replaceAll('"', '""')}"*`);
        return [JSON.stringify(phrases), agentId, phrases.join(' OR '), agentId, limit];
      },
    };
  }
  return {
    sql: `WITH terms AS (
         SELECT to_tsquery('svc_knowledge', quote_literal(value) || ':*') AS query
         FROM json_array_elements_text(CAST(? AS json)) AS value),
       hits AS (
         SELECT p.rowid AS id, COUNT(*) AS covered, MAX(ts_rank('{0, 0, 0.5, 1}', p.words, terms.query)) AS rank
         FROM terms JOIN knowledge_passages AS p ON p.words @@ terms.query
         WHERE p.agent_id = ? GROUP BY p.rowid)
       SELECT p.heading, p.text, p.document_id, hits.covered
       FROM knowledge_passages AS p JOIN hits ON hits.id = p.rowid
       ORDER BY hits.covered DESC, hits.rank DESC, p.rowid
       LIMIT ?`,
    params: (agentId, words, limit) => [JSON.stringify(words), agentId, limit],
  };
}

/**
 * The store's own real time in ms since the epoch, as an SQL expression: leases are judged by it
 * (team mode), never by a daemon's clock nor the sandbox clock. PostgreSQL's clock_timestamp()
 * (the time of the statement, not of its transaction); SQLite's own time, for its one daemon.
 */
export function storeNowMs(db: Db): string {
  return storeKind(db) === 'sqlite'
    ? "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)"
    : 'CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)';
}

/**
 * Locks the rows a SELECT reads until its transaction ends (PostgreSQL: several daemons change
 * one sandbox). SQLite has one writer at a time: nothing to add.
 */
export function forUpdate(db: Db): string {
  return storeKind(db) === 'sqlite' ? '' : 'FOR UPDATE';
}

/** forUpdate, skipping the rows another transaction holds (a claim: each row to one daemon). */
export function forUpdateSkipLocked(db: Db): string {
  return storeKind(db) === 'sqlite' ? '' : 'FOR UPDATE SKIP LOCKED';
}

/** The length in bytes (UTF-8) of a text column, as an SQL expression. */
export function byteLength(db: Db, column: string): string {
  return storeKind(db) === 'sqlite' ? `length(CAST(${column} AS BLOB))` : `octet_length(${column})`;
}
