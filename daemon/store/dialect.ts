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
