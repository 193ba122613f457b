// CLI start-up: `svc --help` against `node -e 0`.
//
// CLI start-up ratio = median wall time of `svc --help` / median of `node -e 0` (floor FLOORS.cliStartupRatio):
// what the CLI's own module loading costs on top of starting Node.
import { spawnSync } from 'node:child_process';
import { median, ROOT, settings, SVC_BIN, table, type BenchCase } from '../harness.js';
import { describeFloor, FLOORS, holds } from '../floors.js';

function timeOnce(args: string[]): number {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) {
    throw new Error(`node ${args.join(' ')} exited ${result.status}: ${String(result.stderr)}`);
  }
  return elapsed;
}

interface StartupResult {
  node: number;
  svc: number;
  ratio: number;
}

function measureStartup(): StartupResult {
  const nodeArgs = ['-e', '0'];
  const svcArgs = [SVC_BIN, '--help'];
  // One unmeasured run each (file cache), then interleaved measured runs.
  timeOnce(nodeArgs);
  timeOnce(svcArgs);
  const node: number[] = [];
  const svc: number[] = [];
  for (let run = 0; run < settings.startupRuns; run += 1) {
    node.push(timeOnce(nodeArgs));
    svc.push(timeOnce(svcArgs));
  }
  const result = { node: median(node), svc: median(svc), ratio: 0 };
  result.ratio = result.svc / result.node;
  return result;
}

function printStartup(startup: StartupResult) {
  console.log(`\nCLI start-up (median of ${settings.startupRuns} runs each)\n`);
  console.log(
    table(
      ['command', 'median ms'],
      [
        ['node -e 0', startup.node.toFixed(1)],
        ['svc --help', startup.svc.toFixed(1)],
      ],
    ),
  );
  console.log(
    `\n  ratio ${startup.ratio.toFixed(2)}x (${describeFloor(FLOORS.cliStartupRatio)}): ` +
      (holds(FLOORS.cliStartupRatio, startup.ratio) ? 'PASS' : 'FAIL'),
  );
}

const startupCase: BenchCase = {
  order: 90,
  needs: 'standalone',
  describe: () => `CLI start-up: median of ${settings.startupRuns} runs each`,
  async run() {
    const startup = measureStartup();
    return {
      print: () => printStartup(startup),
      missed: holds(FLOORS.cliStartupRatio, startup.ratio) ? 0 : 1,
    };
  },
};

export default startupCase;
