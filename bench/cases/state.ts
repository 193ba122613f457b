// Snapshots and fixtures: `state export` and `state import` of a sandbox with 10,000 runs and
// 60,000 events (targets < 1 s each), and `fixtures apply` of the support-desk example (target
// < 500 ms), each timed around its control-channel procedure on a daemon of its own.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  ROOT,
  startSvcDaemon,
  stopSvcDaemon,
  table,
  type BenchCase,
  type Daemon,
} from '../harness.js';

const RUNS = 10_000;
const EXPORT_TARGET_MS = 1000;
const IMPORT_TARGET_MS = 1000;
const FIXTURE_TARGET_MS = 500;

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

/** 10,000 runs of a four-step workflow: each publishes six events (started, 4 steps, completed). */
async function populate(daemon: Daemon): Promise<void> {
  const credential = (await daemon.control('auth.operatorCredential')) as {
    key: string;
    default_workspace_id: string;
  };
  const headers = {
    authorization: `Bearer ${credential.key}`,
    'x-tenant-id': credential.default_workspace_id,
    'content-type': 'application/json',
  };
  const step = (id: string, next?: string) => ({
    id,
    name: id,
    type: 'condition',
    config: { condition: 'true', if_true: next ?? null, if_false: null },
  });
  const created = await fetch(`${daemon.url}/v1/workflows`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      name: 'Bench runs',
      status: 'active',
      steps: [step('a', 'b'), step('b', 'c'), step('c', 'd'), step('d')],
    }),
  });
  const workflow = ((await created.json()) as { data: { id: string } }).data;
  const body = JSON.stringify({ input: {} });
  for (let started = 0; started < RUNS; started += 100) {
    await Promise.all(
      Array.from({ length: 100 }, () =>
        fetch(`${daemon.url}/v1/workflows/${workflow.id}/execute`, {
          method: 'POST',
          headers,
          body,
        }).then((answer) => answer.arrayBuffer()),
      ),
    );
  }
}

const stateCase: BenchCase = {
  order: 80,
  needs: 'standalone',
  describe: () =>
    `Snapshots: state export/import of ${RUNS} runs and ~${RUNS * 6} events (< 1 s each); fixtures apply support-desk (< 500 ms)`,
  async run() {
    const daemon = await startSvcDaemon();
    const file = join(mkdtempSync(join(tmpdir(), 'svc-bench-state-')), 'bench.svcsnap');
    let exportMs: number;
    let importMs: number;
    let fixtureMs: number;
    try {
      await populate(daemon);
      exportMs = await timed(() => daemon.control('state.export', { file }, 'mutation'));
      importMs = await timed(() => daemon.control('state.import', { file }, 'mutation'));
      const { parse } = await import('yaml');
      const dir = join(ROOT, 'fixtures');
      const fixture = parse(readFileSync(join(dir, 'support-desk.yaml'), 'utf8')) as unknown;
      const faq = readFileSync(join(dir, 'support-desk', 'faq.md')).toString('base64');
      const triage = parse(
        readFileSync(join(dir, 'support-desk', 'triage-workflow.yaml'), 'utf8'),
      ) as Record<string, unknown>;
      fixtureMs = await timed(() =>
        daemon.control(
          'fixtures.applyFixture',
          {
            fixture,
            files: { 'support-desk/faq.md': { content_base64: faq } },
            workflow_files: { 'support-desk/triage-workflow.yaml': triage },
          },
          'mutation',
        ),
      );
    } finally {
      await stopSvcDaemon(daemon);
      rmSync(daemon.dataDir, { recursive: true, force: true });
      rmSync(dirname(file), { recursive: true, force: true });
    }
    const rows: [string, number, number][] = [
      ['state export', exportMs, EXPORT_TARGET_MS],
      ['state import', importMs, IMPORT_TARGET_MS],
      ['fixtures apply support-desk', fixtureMs, FIXTURE_TARGET_MS],
    ];
    return {
      print() {
        console.log(`\nSnapshots and fixtures (${RUNS} runs)\n`);
        console.log(
          table(
            ['operation', 'ms', 'target ms', ''],
            rows.map(([name, ms, target]) => [
              name,
              ms.toFixed(0),
              String(target),
              ms < target ? 'PASS' : 'FAIL',
            ]),
          ),
        );
      },
      missed: rows.filter(([, ms, target]) => ms >= target).length,
    };
  },
};

export default stateCase;
