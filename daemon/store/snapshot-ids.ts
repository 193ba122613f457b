// The ids of a snapshot are data that reaches shells (completion), URLs and messages: svc
// state import refuses a snapshot in which an id does not follow svc's grammar for its table
// (prefix + base62, shared/ids.ts), naming the first (issue 51: a workflow id `wfl_$(touch x)`
// was imported and later run by bash's completion). Keys must belong to a workspace that the
// snapshot holds: svc never makes a standard key without one, and such a key would act in every
// workspace of its user. Checked in SQL (a scan per table in C, not a JavaScript call per row).
import type { Database as Db } from 'better-sqlite3';
import { ID_PREFIXES, type IdKind } from '../../shared/ids.js';
import { ApiError } from '../domain/errors.js';

/** The `id` column of each table and the kind of id svc writes there. */
const ID_TABLES: Readonly<Record<string, IdKind>> = {
  users: 'user',
  workspaces: 'workspace',
  api_keys: 'key',
  events: 'event',
  timers: 'timer',
  dead_timers: 'timer',
  webhooks: 'webhook',
  deliveries: 'delivery',
  integrations: 'integration',
  agents: 'agent',
  agent_executions: 'agentExecution',
  agent_messages: 'message',
  knowledge_documents: 'document',
  agent_stubs: 'stub',
  workflows: 'workflow',
  workflow_executions: 'workflowExecution',
  oauth_apps: 'oauthApp',
  oauth_grants: 'oauthGrant',
  oauth_tokens: 'oauthToken',
  faults: 'fault',
};

/** How much of an offending id a message quotes (JSON-escaped: no control character reaches a terminal). */
const QUOTED = 80;

function quoted(value: unknown): string {
  const text = typeof value === 'string' ? value : String(value);
  return JSON.stringify(text.length > QUOTED ? `${text.slice(0, QUOTED)}...` : text);
}

export function checkIds(db: Db, shownAs: string): void {
  const tables = new Set(
    db
      .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
      .all()
      .map((row) => row.name),
  );
  for (const [table, kind] of Object.entries(ID_TABLES)) {
    if (!tables.has(table)) continue;
    const prefix = ID_PREFIXES[kind];
    // Identifiers come from the constant table above, never from the snapshot.
    const bad = db
      .prepare<[{ prefix: string; length: number }], { row: number; id: unknown }>(
        `SELECT rowid AS row, id FROM "${table}"
           WHERE NOT (typeof(id) = 'text' AND substr(id, 1, @length) = @prefix
             AND length(id) BETWEEN @length + 1 AND @length + 64
             AND substr(id, @length + 1) NOT GLOB '*[^0-9A-Za-z]*')
           ORDER BY rowid LIMIT 1`,
      )
      .get({ prefix, length: prefix.length });
    if (bad) {
      throw new ApiError(
        'invalid_parameter',
        `The snapshot ${shownAs} has an id that is not svc's in table ${table}, row ${bad.row}: ${quoted(bad.id)} (svc writes ${prefix} and 1 to 64 letters or digits). It was changed after svc state export wrote it; nothing was imported. Export it again with svc state export.`,
        { param: 'file', extras: { table, row: bad.row, id: String(bad.id).slice(0, QUOTED) } },
      );
    }
  }
  if (tables.has('api_keys')) {
    const orphan = db
      .prepare<[], { id: string; workspace_id: string | null }>(
        `SELECT id, workspace_id FROM api_keys WHERE kind = 'standard'
           AND (workspace_id IS NULL OR workspace_id NOT IN (SELECT id FROM workspaces))
           ORDER BY rowid LIMIT 1`,
      )
      .get();
    if (orphan) {
      throw new ApiError(
        'invalid_parameter',
        `The snapshot ${shownAs} holds the API key ${orphan.id} ${orphan.workspace_id === null ? 'with no workspace' : `of workspace ${quoted(orphan.workspace_id)}, which it does not hold`}: svc makes every key in one workspace, and such a key would act in any. It was changed after svc state export wrote it; nothing was imported. Export it again with svc state export.`,
        { param: 'file', extras: { table: 'api_keys', id: orphan.id } },
      );
    }
  }
}
