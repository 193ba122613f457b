// The scaling case of `npm run bench`: do lists and gets stay as fast with a big store?
//
// Two daemons of its own, started after the shared one has stopped (the other cases leave
// hundreds of thousands of rows in that one's store): an empty store and a seeded one. On each,
// a page's worth (25) of workflow runs and events are made through the API, so that both answer
// full pages of the same size. Then BENCH_SCALE_EVENTS (1,000,000) events and BENCH_SCALE_RUNS
// (100,000) runs are stored in the seeded one, copies of those two rows with new ids and older
// times within retention, written straight into its svc.db through a second SQLite connection
// while it serves (the list counters are kept as for rows the daemon writes). Four requests are
// timed with autocannon on both, alternating the two in every round (BENCH_ROUNDS; who goes
// first alternates; req/s is the mean of the rounds, p99 the worst): GET /v1/events?limit=20,
// GET /v1/events/{id}, GET /v1/workflows/{id}/executions?limit=20 and
// GET /v1/workflows/{id}/executions/{execution_id}. Measured one after the other instead, the
// ratio followed the machine's drift between the two halves (0.80-1.07 for the events list).
//
// Figure: seeded req/s / empty req/s per request; target >= 0.9 (latency within 10%).
import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  api,
  apiHeaders,
  benchAgent,
  compareRounds,
  numberSetting,
  settings,
  startBenchDaemon,
  stopSvcDaemon,
  table,
  type BenchCase,
  type Daemon,
  type RunFigures,
  roundOrder,
} from '../harness.js';
import { loadWithCpu } from '../load.js';
import { countCopies } from '../seeded-counts.js';

const SEED_EVENTS = Math.round(numberSetting('BENCH_SCALE_EVENTS', 1_000_000));
const SEED_RUNS = Math.round(numberSetting('BENCH_SCALE_RUNS', 100_000));
const TARGET_RATIO = 0.9;
/** Rows made through the API before the first timing: more than a page of 20. */
const PAGE_FILL = 25;
const DAY_MS = 86_400_000;

interface Probe {
  name: string;
  path: string;
}

interface ProbeResult {
  name: string;
  empty: number;
  seeded: number;
  emptyP99: number;
  seededP99: number;
}

async function measure(ctx: Daemon, probe: Probe, seconds: number): Promise<RunFigures> {
  const { figures } = await loadWithCpu(ctx.pid, {
    url: `${ctx.url}${probe.path}`,
    headers: apiHeaders(ctx),
    connections: settings.connections,
    duration: seconds,
  });
  return figures;
}

/** Ids like the daemon's (prefix + base62 of the same length), distinct per copy. */
function seededId(model: string, prefix: string, index: number): string {
  const width = model.length - prefix.length - 1;
  return `${prefix}S${String(index).padStart(width, '0')}`;
}

/** Copies of one stored row, `count` of them, each `stepMs` older than the one before. */
function seedCopies(
  db: Database.Database,
  table: 'events' | 'workflow_executions',
  model: { id: string; created_at: number },
  prefix: string,
  count: number,
) {
  const columns = (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map(
    (column) => column.name,
  );
  const copied = columns.filter((name) => name !== 'id' && name !== 'created_at');
  const insert = db.prepare(
    `INSERT INTO ${table} (id, created_at, ${copied.join(', ')})
     SELECT ?, ?, ${copied.join(', ')} FROM ${table} WHERE id = ?`,
  );
  // Spread over 28 days back from the model: all of it within the 30-day retention.
  const stepMs = Math.max(1, Math.floor((28 * DAY_MS) / count));
  const batch = 20_000;
  for (let start = 0; start < count; start += batch) {
    db.transaction(() => {
      for (let i = start; i < Math.min(count, start + batch); i += 1) {
        insert.run(seededId(model.id, prefix, i), model.created_at - (i + 1) * stepMs, model.id);
      }
      countCopies(db, table, model.id, Math.min(count, start + batch) - start);
    })();
  }
}

/** A page's worth of runs and events made through the API, and the requests timed on them. */
async function fillPage(ctx: Daemon): Promise<{ probes: Probe[]; runId: string; eventId: string }> {
  const agentId = await benchAgent(ctx);
  const workflow = await api<{ id: string }>(ctx, 'POST', '/v1/workflows', {
    name: 'Bench: scaling',
    status: 'active',
    steps: [
      {
        id: 'answer',
        name: 'Answer',
        type: 'agent_action',
        agent_id: agentId,
        config: { action: 'answer_question', input_mapping: { text: '{{trigger.payload.text}}' } },
      },
    ],
  });
  let runId = '';
  let eventId = '';
  for (let i = 0; i < PAGE_FILL; i += 1) {
    const run = await api<{ id?: string; execution_id?: string }>(
      ctx,
      'POST',
      `/v1/workflows/${workflow.id}/execute`,
      { input: { text: 'hello' }, wait_for_completion: true },
    );
    runId = run.id ?? run.execution_id!;
    const event = (await ctx.control('events.trigger', { type: 'agent.created' }, 'mutation')) as {
      id: string;
    };
    eventId = event.id;
  }
  const probes: Probe[] = [
    { name: 'GET /v1/events?limit=20', path: '/v1/events?limit=20' },
    { name: 'GET /v1/events/{id}', path: `/v1/events/${eventId}` },
    {
      name: 'GET /v1/workflows/{id}/executions?limit=20',
      path: `/v1/workflows/${workflow.id}/executions?limit=20`,
    },
    {
      name: 'GET /v1/workflows/{id}/executions/{id}',
      path: `/v1/workflows/${workflow.id}/executions/${runId}`,
    },
  ];
  return { probes, runId, eventId };
}

function seed(ctx: Daemon, eventId: string, runId: string): void {
  process.stdout.write(
    `  scaling: storing ${SEED_EVENTS} events and ${SEED_RUNS} runs into the seeded daemon's store ... `,
  );
  const started = Date.now();
  const db = new Database(join(ctx.dataDir, 'svc.db'));
  try {
    db.pragma('busy_timeout = 10000');
    const row = (tableName: string, id: string) =>
      db.prepare(`SELECT id, created_at FROM ${tableName} WHERE id = ?`).get(id) as {
        id: string;
        created_at: number;
      };
    seedCopies(db, 'events', row('events', eventId), 'evt_', SEED_EVENTS);
    seedCopies(db, 'workflow_executions', row('workflow_executions', runId), 'wex_', SEED_RUNS);
  } finally {
    db.close();
  }
  process.stdout.write(`${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}

async function runScaling(): Promise<ProbeResult[]> {
  const daemons: Daemon[] = [];
  try {
    const empty = await startBenchDaemon();
    daemons.push(empty);
    const seeded = await startBenchDaemon();
    daemons.push(seeded);
    process.stdout.write(
      `  scaling: empty store pid ${empty.pid}, seeded store pid ${seeded.pid}\n`,
    );
    const onEmpty = await fillPage(empty);
    const onSeeded = await fillPage(seeded);
    seed(seeded, onSeeded.eventId, onSeeded.runId);
    const results: ProbeResult[] = [];
    for (const [index, probe] of onEmpty.probes.entries()) {
      const targets = [
        { label: 'empty', ctx: empty, probe },
        { label: 'seeded', ctx: seeded, probe: onSeeded.probes[index]! },
      ] as const;
      const runs = { empty: [] as RunFigures[], seeded: [] as RunFigures[] };
      for (let round = 0; round < settings.rounds; round += 1) {
        for (const target of roundOrder(targets, round)) {
          process.stdout.write(
            `  scaling: ${probe.name}: ${target.label} (round ${round + 1}/${settings.rounds}) ...`,
          );
          await measure(target.ctx, target.probe, settings.warmupSeconds);
          const figures = await measure(target.ctx, target.probe, settings.seconds);
          runs[target.label].push(figures);
          process.stdout.write(` ${figures.reqPerSec.toFixed(0)} req/s, p99 ${figures.p99} ms\n`);
        }
      }
      const compared = compareRounds(runs.seeded, runs.empty);
      results.push({
        name: probe.name,
        empty: compared.baseline.reqPerSec,
        seeded: compared.daemon.reqPerSec,
        emptyP99: compared.baseline.p99,
        seededP99: compared.daemon.p99,
      });
    }
    return results;
  } finally {
    for (const daemon of daemons) {
      await stopSvcDaemon(daemon);
      rmSync(daemon.dataDir, { recursive: true, force: true });
    }
  }
}

const scalingCase: BenchCase = {
  order: 80,
  needs: 'standalone',
  describe: () =>
    `scaling: lists and gets with ${SEED_EVENTS} events and ${SEED_RUNS} runs stored against an ` +
    `empty store (BENCH_SCALE_EVENTS, BENCH_SCALE_RUNS; target >= ${TARGET_RATIO} of the req/s)`,
  async run() {
    const results = await runScaling();
    const missed = results.filter((result) => result.seeded / result.empty < TARGET_RATIO).length;
    return {
      missed,
      print() {
        console.log(
          `\nScaling with stored data (${SEED_EVENTS} events, ${SEED_RUNS} runs; ` +
            `${settings.connections} connections):`,
        );
        console.log(
          table(
            ['request', 'empty req/s', 'seeded req/s', 'ratio', 'p99 ms empty/seeded', 'verdict'],
            results.map((result) => {
              const ratio = result.seeded / result.empty;
              return [
                result.name,
                result.empty.toFixed(0),
                result.seeded.toFixed(0),
                ratio.toFixed(3),
                `${result.emptyP99} / ${result.seededP99}`,
                ratio >= TARGET_RATIO ? 'PASS' : 'FAIL',
              ];
            }),
          ),
        );
      },
    };
  },
};

export default scalingCase;
