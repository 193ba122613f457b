// What the dashboard bench stores straight into a stopped daemon's database: copies of real rows
// (runs with their step rows, deliveries, events), each under a new id and spread back in time,
// older than the real rows and within retention, so the lists page through them all. Starting
// that many runs or publishing that many events through the API would take many minutes and
// measure something else. The copies are counted (seeded-counts.ts) as the repositories would.
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { countCopies } from './seeded-counts.js';

type Row = Record<string, unknown>;

/** How many copies of each kind to store, and the real rows to copy. */
export interface Seed {
  runs: number;
  deliveries: number;
  events: number;
  sampleRunId: string;
  sampleDeliveryId: string;
  workspaceId: string;
}

/** Ids of copies the bench pages to: a run and a delivery about halfway down their lists. */
export interface Seeded {
  deepRunId: string;
  deepDeliveryId: string;
}

const newId = (prefix: string) => `${prefix}_bench${randomBytes(8).toString('hex')}`;

function insertInto(db: Database.Database, table: string, columns: string[]) {
  return db.prepare(
    `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((c) => '@' + c).join(', ')})`,
  );
}

function rowCount(db: Database.Database, table: string): number {
  return (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
}

/** Copies the run (and its step rows) until the database holds `total` runs; 17 s apart. */
function storeRuns(db: Database.Database, sampleId: string, total: number): string {
  const sample = db.prepare('SELECT * FROM workflow_executions WHERE id = ?').get(sampleId) as
    Row | undefined;
  if (!sample) throw new Error(`run ${sampleId} is not stored`);
  const steps = db
    .prepare('SELECT * FROM workflow_step_runs WHERE execution_id = ?')
    .all(sampleId) as Row[];
  const insertRun = insertInto(db, 'workflow_executions', Object.keys(sample));
  const insertStep = insertInto(db, 'workflow_step_runs', Object.keys(steps[0] ?? { id: 0 }));
  const count = Math.max(0, total - rowCount(db, 'workflow_executions'));
  const created = sample.created_at as number;
  let deep = '';
  for (let i = 0; i < count; i += 1) {
    const id = newId('wex');
    // Spread over the last 20 days, older than the real runs, so retention keeps them all.
    const at = created - 1000 - i * 17_000;
    insertRun.run({ ...sample, id, created_at: at, completed_at: at + 40 });
    for (const step of steps) {
      insertStep.run({ ...step, execution_id: id, started_at: at, completed_at: at + 40 });
    }
    if (i === Math.floor(count / 2)) deep = id;
  }
  countCopies(db, 'workflow_executions', sampleId, count);
  return deep;
}

/** Copies the delivery (its webhook's list) until the webhook has `total` deliveries; 17 s apart. */
function storeDeliveries(db: Database.Database, sampleId: string, total: number): string {
  const sample = db.prepare('SELECT * FROM deliveries WHERE id = ?').get(sampleId) as
    Row | undefined;
  if (!sample) throw new Error(`delivery ${sampleId} is not stored`);
  const have = (
    db
      .prepare('SELECT COUNT(*) AS n FROM deliveries WHERE webhook_id = ?')
      .get(sample.webhook_id) as {
      n: number;
    }
  ).n;
  const insert = insertInto(db, 'deliveries', Object.keys(sample));
  const count = Math.max(0, total - have);
  const created = sample.created_at as number;
  let deep = '';
  for (let i = 0; i < count; i += 1) {
    const id = newId('del');
    const at = created - 1000 - i * 17_000;
    insert.run({ ...sample, id, created_at: at, delivered_at: at + 5, last_attempt_at: at + 5 });
    if (i === Math.floor(count / 2)) deep = id;
  }
  countCopies(db, 'deliveries', sampleId, count);
  return deep;
}

/**
 * Copies the workspace's events (each stored type in turn, the envelope's id replaced) until it
 * holds `total`, 1.5 s apart: a million span 17 days, within the 30-day retention.
 */
function storeEvents(db: Database.Database, workspaceId: string, total: number): void {
  const samples = db
    .prepare(
      'SELECT * FROM events WHERE workspace_id = ? AND id IN (SELECT MIN(id) FROM events WHERE workspace_id = ? GROUP BY type)',
    )
    .all(workspaceId, workspaceId) as Row[];
  if (samples.length === 0) throw new Error(`no events stored in ${workspaceId}`);
  const insert = insertInto(db, 'events', Object.keys(samples[0]!));
  const count = Math.max(0, total - rowCount(db, 'events'));
  const oldest = Math.min(...samples.map((sample) => sample.created_at as number));
  const copies = samples.map(() => 0);
  for (let i = 0; i < count; i += 1) {
    const which = i % samples.length;
    const sample = samples[which]!;
    const id = newId('evt');
    const envelope = (sample.envelope as string).split(sample.id as string).join(id);
    insert.run({ ...sample, id, envelope, created_at: oldest - 1000 - i * 1500 });
    copies[which]! += 1;
  }
  samples.forEach((sample, index) =>
    countCopies(db, 'events', sample.id as string, copies[index]!),
  );
}

/** Stores the copies in the data dir's database (the daemon stopped), in one transaction. */
export function seedDashboard(dataDir: string, seed: Seed): Seeded {
  const db = new Database(join(dataDir, 'svc.db'));
  try {
    return db.transaction(() => {
      const deepRunId = storeRuns(db, seed.sampleRunId, seed.runs);
      const deepDeliveryId = storeDeliveries(db, seed.sampleDeliveryId, seed.deliveries);
      storeEvents(db, seed.workspaceId, seed.events);
      return { deepRunId, deepDeliveryId };
    })();
  } finally {
    db.close();
  }
}
