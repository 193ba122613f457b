// The testing kit: createSandbox() + stop() (a daemon in this process, svc/testing) against
// `svc daemon start` + `svc daemon stop` (a daemon process through the CLI), and 20 sandboxes
// created at once. Target: create+stop median under 250 ms.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createSandbox } from '../../testing/index.js';
import { median, ROOT, SVC_BIN, table, type BenchCase } from '../harness.js';

const RUNS = 7;
const PARALLEL = 20;
const TARGET_MS = 250;

async function sandboxOnce(): Promise<number> {
  const started = performance.now();
  const sb = await createSandbox();
  await sb.stop();
  return performance.now() - started;
}

function daemonOnce(): number {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-daemon-'));
  const env = { ...process.env, SVC_DATA_DIR: dataDir, NO_COLOR: '1' };
  const started = performance.now();
  for (const args of [
    ['daemon', 'start', '--port', '0'],
    ['daemon', 'stop'],
  ]) {
    const result = spawnSync(process.execPath, [SVC_BIN, ...args], { cwd: ROOT, env });
    if (result.status !== 0) throw new Error(`svc ${args.join(' ')}: ${String(result.stderr)}`);
  }
  const elapsed = performance.now() - started;
  rmSync(dataDir, { recursive: true, force: true });
  return elapsed;
}

const sandboxCase: BenchCase = {
  order: 95,
  needs: 'standalone',
  describe: () =>
    `testing kit: createSandbox()+stop() and svc daemon start+stop, median of ${RUNS}; ${PARALLEL} sandboxes at once`,
  async run() {
    await sandboxOnce(); // unmeasured: module and file caches
    const sandbox: number[] = [];
    const daemon: number[] = [];
    for (let run = 0; run < RUNS; run += 1) {
      sandbox.push(await sandboxOnce());
      daemon.push(daemonOnce());
    }
    const started = performance.now();
    const many = await Promise.all(Array.from({ length: PARALLEL }, () => createSandbox()));
    await Promise.all(many.map((sb) => sb.stop()));
    const parallel = performance.now() - started;
    const sandboxMedian = median(sandbox);
    return {
      print: () => {
        console.log(`\nTesting kit (median of ${RUNS} runs each)\n`);
        console.log(
          table(
            ['what', 'ms'],
            [
              ['createSandbox() + stop()', sandboxMedian.toFixed(0)],
              ['svc daemon start + stop', median(daemon).toFixed(0)],
              [`${PARALLEL} sandboxes created and stopped at once`, parallel.toFixed(0)],
            ],
          ),
        );
        console.log(
          `\n  create+stop median ${sandboxMedian.toFixed(0)} ms (target < ${TARGET_MS} ms): ` +
            (sandboxMedian < TARGET_MS ? 'PASS' : 'FAIL'),
        );
      },
      missed: sandboxMedian < TARGET_MS ? 0 : 1,
    };
  },
};

export default sandboxCase;
