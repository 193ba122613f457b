// Reads the workflows of a snapshot being imported (the staging copy, already checked and
// migrated, before it is swapped in): each workflow's current version and the agents of each
// workspace, so that the import can check them as a create would (snapshot-check.ts).
import { openReadOnly } from '../store/database.js';

export interface SnapshotWorkflow {
  id: string;
  workspace_id: string;
  name: string;
  version: number;
  /** The version's steps as stored (JSON). */
  steps: string;
}

export interface SnapshotWorkflows {
  workflows: SnapshotWorkflow[];
  /** Agent ids by workspace id. */
  agents: Map<string, Set<string>>;
}

export function readSnapshotWorkflows(file: string): SnapshotWorkflows {
  const db = openReadOnly(file);
  try {
    const workflows = db
      .prepare<[], SnapshotWorkflow>(
        `SELECT w.id, w.workspace_id, w.name, w.version, v.steps
           FROM workflows w JOIN workflow_versions v ON v.workflow_id = w.id AND v.version = w.version
          ORDER BY w.created_at, w.id`,
      )
      .all();
    const agents = new Map<string, Set<string>>();
    const rows = db.prepare<[], { id: string; workspace_id: string }>(
      'SELECT id, workspace_id FROM agents',
    );
    for (const row of rows.iterate()) {
      let ids = agents.get(row.workspace_id);
      if (!ids) agents.set(row.workspace_id, (ids = new Set()));
      ids.add(row.id);
    }
    return { workflows, agents };
  } finally {
    db.close();
  }
}
