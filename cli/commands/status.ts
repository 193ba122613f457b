// svc status: one look at the sandbox: the daemon (address, data dir, pid, version), its clock,
// its brain, and what is under way in every workspace (runs, deliveries, approvals), each count
// with the command that moves it on.
import { advanceBy, formatDuration } from '../../shared/duration.js';
import { command, defineCommands } from '../command.js';
import type { CliContext } from '../context.js';
import { chalk } from '../output.js';
import { storeWords } from '../../shared/store-url.js';
import type { SandboxStatus } from '../../shared/schemas/control-output.js';

export default defineCommands([
  command({
    path: ['status'],
    description:
      'Show the daemon, its clock and brain, and the runs, deliveries and approvals under way',
    examples: ['svc status', 'svc status --json'],
    async run(ctx) {
      const { isAlive } = await import('../../shared/process.js');
      const runtime = ctx.runtime();
      if (!runtime || !isAlive(runtime.pid)) {
        notRunning(ctx);
        return;
      }
      const status = await (await ctx.control()).daemon.overview.query();
      ctx.out.result({ running: true, ...status }, () => describe(status));
    },
  }),
]);

function notRunning(ctx: CliContext): void {
  const dataDirFlag = ctx.options.dataDir ? ` --data-dir ${ctx.dataDir}` : '';
  ctx.out.result(
    { running: false, data_dir: ctx.dataDir },
    () =>
      `svc daemon is not running (data dir ${ctx.dataDir}). Start it with: svc daemon start${dataDirFlag}`,
  );
  process.exitCode = 1;
}

function describe(status: SandboxStatus): string {
  const { runs, deliveries, approvals, brain } = status;
  return [
    `svc daemon running at ${chalk.cyan(status.url)} (pid ${status.pid}, ${status.environment}, version ${status.version})`,
    `data dir    ${status.data_dir}`,
    `store       ${storeWords(status.store)}`,
    `clock       ${status.clock.now} (${clockWords(status.clock)})`,
    `brain       ${brain.mode}${brain.mode === 'replay' && brain.replay_cassette ? ` from ${brain.replay_cassette}` : ''}, ${cassetteWords(brain)}${brain.recording ? `, recording to ${brain.recording}` : ''}`,
    `runs        ${runs.running} running, ${runs.waiting} waiting for the clock, ${runs.awaiting_approval} awaiting approval${wakeHint(status)}`,
    `deliveries  ${deliveries.pending} pending, ${deliveries.held} held${deliveries.held ? ' (by paused or failed webhooks: svc webhooks update HOOK --status active)' : ''}`,
    `approvals   ${approvals.pending} pending${approvals.pending ? ' (list them with: svc approvals; decide with: svc approvals approve|reject EXECUTION, or in svc dashboard)' : ''}`,
    ...daemonLines(status),
  ].join('\n');
}

/** Where the daemon's cassettes are kept (team mode: the sandbox's store, the folder's files taken in). */
function cassetteWords(brain: SandboxStatus['brain']): string {
  return brain.cassettes_in === 'store'
    ? `cassettes in the sandbox's store (files of ${brain.cassette_dir} taken in when first used)`
    : `cassettes in ${brain.cassette_dir}`;
}

/**
 * Team mode: every daemon of the sandbox (address, since when, last heartbeat, what it holds),
 * one alone included: a user checking that a second daemon joined sees the first listed before.
 * On SQLite, where a daemon is always alone on its store, nothing more: the first line is it.
 */
function daemonLines({ daemons, store }: SandboxStatus): string[] {
  if (store.kind !== 'postgres') return [];
  return [
    `daemons     ${daemons.filter((daemon) => daemon.state === 'live').length} live of ${daemons.length} listed (real time)`,
    ...daemons.map((daemon) => {
      const since = `since ${daemon.started_at}`;
      const state =
        daemon.state === 'stopped'
          ? `stopped at ${daemon.stopped_at}`
          : daemon.state === 'lost'
            ? `lost at ${daemon.lost_at}, taken over by ${daemon.taken_over_by}`
            : `${daemon.state}, last heartbeat ${daemon.heartbeat_at}, holds ${daemon.claimed_timers} timers and ${daemon.driven_runs} runs`;
      return `  ${daemon.self ? '*' : ' '} ${daemon.id} ${daemon.address} (pid ${daemon.pid} on ${daemon.host}, ${since}): ${state}`;
    }),
  ];
}

/** "real time", "1h ahead of real time, frozen", "30m behind real time". */
function clockWords(clock: SandboxStatus['clock']): string {
  const offset = clock.offset_ms;
  // Under a second apart is real time: a frozen clock drifts from it by the time since it froze.
  const words =
    Math.abs(offset) < 1000
      ? 'real time'
      : `${formatDuration(Math.abs(offset))} ${offset > 0 ? 'ahead of' : 'behind'} real time`;
  return clock.frozen ? `${words}, frozen: svc clock resume lets it tick` : words;
}

/** When a run waits on the clock: when the first wakes up, and the advance that gets there. */
function wakeHint({ runs, clock }: SandboxStatus): string {
  if (runs.next_wake_at === null) return '';
  const ms = Date.parse(runs.next_wake_at) - Date.parse(clock.now);
  if (ms <= 0) return `; the next wakes at ${runs.next_wake_at}`;
  return `; the next wakes at ${runs.next_wake_at}: svc clock advance ${advanceBy(ms)}`;
}
