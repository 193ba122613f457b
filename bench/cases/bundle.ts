// The bundle's saving (scripts/bundle.mjs): CPU of a daemon start to ready and of one CLI call
// (`svc agents list --json` against a running daemon), from dist/bundle/ and from the compiled
// files, measured in the same run, interleaved (Linux: the CPU is read from /proc).
//
// Daemon start ratio = median CPU of a bundled start / of a compiled one (floor
// FLOORS.bundledDaemonStartRatio); CLI call ratio likewise (FLOORS.bundledCliCallRatio).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUNDLE_DIR, BUNDLE_ENTRIES, type BundleEntry } from '../../shared/bundle-entry.js';
import { DAEMON_NODE_FLAGS } from '../../shared/daemon-launch.js';
import { describeFloor, FLOORS, holds } from '../floors.js';
import { median, ROOT, settings, table, type BenchCase } from '../harness.js';

const DIST = join(ROOT, 'dist');
const CPU_AT_EXIT = join(import.meta.dirname, '..', 'cpu-at-exit.mjs');
type Build = 'bundled' | 'compiled';
const file = (build: Build, entry: BundleEntry) =>
  build === 'bundled' ? join(DIST, BUNDLE_DIR, `${entry}.js`) : join(DIST, BUNDLE_ENTRIES[entry]);

/** User+system CPU seconds of a live process (/proc/<pid>/stat, clock ticks of 1/100 s). */
function cpuOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Starts a daemon from that build on a fresh data dir; its CPU when it says it is ready. */
async function daemonStart(
  build: Build,
): Promise<{ cpu: number; stop(): Promise<void>; dataDir: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-bundle-'));
  const child = spawn(process.execPath, [...DAEMON_NODE_FLAGS, file(build, 'daemon/entry')], {
    env: { ...process.env, SVC_DATA_DIR: dataDir, SVC_PORT: '0', NO_COLOR: '1' },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const message = await new Promise<{ type: string; message?: string }>((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`the ${build} daemon exited ${code}`)));
  });
  if (message.type !== 'ready') throw new Error(`the ${build} daemon: ${message.message}`);
  const cpu = cpuOf(child.pid!);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const stop = async () => {
    child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  };
  return { cpu, stop, dataDir };
}

/** One CLI call from that build; its CPU as the process saw it at exit (cpu-at-exit.mjs). */
function cliCall(build: Build, dataDir: string): number {
  const result = spawnSync(
    process.execPath,
    [
      '--import',
      CPU_AT_EXIT,
      file(build, 'cli/main'),
      '--data-dir',
      dataDir,
      'agents',
      'list',
      '--json',
    ],
    { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' }, encoding: 'utf8' },
  );
  const cpu = /cpu-seconds (\S+)/.exec(result.stderr)?.[1];
  if (result.status !== 0 || cpu === undefined)
    throw new Error(`svc agents list (${build}) exited ${result.status}: ${result.stderr}`);
  return Number(cpu);
}

interface BundleResult {
  daemon: Record<Build, number>;
  cli: Record<Build, number>;
  daemonRatio: number;
  cliRatio: number;
}

async function measure(): Promise<BundleResult> {
  const builds: Build[] = ['bundled', 'compiled'];
  const daemon: Record<Build, number[]> = { bundled: [], compiled: [] };
  const cli: Record<Build, number[]> = { bundled: [], compiled: [] };
  const runs = settings.bundleRuns;
  for (let run = 0; run < runs; run += 1) {
    for (const build of builds) {
      const started = await daemonStart(build);
      daemon[build].push(started.cpu);
      // The CLI calls of both builds go to this daemon, interleaved.
      if (build === 'bundled') {
        for (const callBuild of builds) cli[callBuild].push(cliCall(callBuild, started.dataDir));
      }
      await started.stop();
    }
  }
  const result = {
    daemon: { bundled: median(daemon.bundled), compiled: median(daemon.compiled) },
    cli: { bundled: median(cli.bundled), compiled: median(cli.compiled) },
    daemonRatio: 0,
    cliRatio: 0,
  };
  result.daemonRatio = result.daemon.bundled / result.daemon.compiled;
  result.cliRatio = result.cli.bundled / result.cli.compiled;
  return result;
}

function print(result: BundleResult) {
  console.log(`\nBundle (median CPU seconds of ${settings.bundleRuns} runs each)\n`);
  console.log(
    table(
      ['', 'bundled', 'compiled', 'ratio'],
      [
        [
          'daemon start to ready',
          result.daemon.bundled.toFixed(2),
          result.daemon.compiled.toFixed(2),
          result.daemonRatio.toFixed(2),
        ],
        [
          'svc agents list --json',
          result.cli.bundled.toFixed(3),
          result.cli.compiled.toFixed(3),
          result.cliRatio.toFixed(2),
        ],
      ],
    ),
  );
  for (const [label, floor, ratio] of [
    ['daemon start', FLOORS.bundledDaemonStartRatio, result.daemonRatio],
    ['CLI call', FLOORS.bundledCliCallRatio, result.cliRatio],
  ] as const) {
    console.log(
      `\n  ${label} ratio ${ratio.toFixed(2)}x (${describeFloor(floor)}): ` +
        (holds(floor, ratio) ? 'PASS' : 'FAIL'),
    );
  }
}

const bundleCase: BenchCase = {
  order: 91,
  needs: 'standalone',
  describe: () =>
    `Bundle: daemon start and one CLI call, bundled against compiled, ${settings.bundleRuns} runs each`,
  async run() {
    if (!existsSync('/proc/self/stat') || !existsSync(join(DIST, BUNDLE_DIR))) {
      return {
        print: () => console.log('\nBundle: skipped (needs Linux /proc and dist/bundle)'),
        missed: 0,
      };
    }
    const result = await measure();
    const missed =
      Number(!holds(FLOORS.bundledDaemonStartRatio, result.daemonRatio)) +
      Number(!holds(FLOORS.bundledCliCallRatio, result.cliRatio));
    return { print: () => print(result), missed };
  },
};

export default bundleCase;
