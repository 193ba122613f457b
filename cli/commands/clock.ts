// svc clock show|advance|set|reset|freeze|resume (sandbox only)
import { formatOffset, parseDuration } from '../../shared/duration.js';
import { command, defineCommands, group } from '../command.js';
import { UsageError } from '../errors.js';
import { chalk } from '../output.js';
import type { ClockState } from '../../shared/schemas/control-output.js';

const describe = (state: ClockState) =>
  `${chalk.cyan(state.now)}${state.frozen ? chalk.yellow(' frozen') : ''}${state.offset_ms ? chalk.dim(` (real time ${state.real_now}, offset ${formatOffset(state.offset_ms)})`) : chalk.dim(' (real time)')}`;

export default defineCommands([
  group(['clock'], 'The sandbox clock: show, advance, set, reset, freeze, resume'),
  command({
    path: ['clock', 'show'],
    description: "Show the daemon's clock (also: svc clock)",
    isDefault: true,
    async run(ctx) {
      const state = await (await ctx.control()).clock.show.query();
      ctx.out.result(state, () => describe(state));
    },
  }),
  command({
    path: ['clock', 'advance'],
    description: 'Move the clock forward; whatever became due runs before this returns',
    args: [{ name: 'duration', description: '30s, 5m, 1h, 2d or ISO 8601 (PT1H)' }],
    examples: ['svc clock advance 1h'],
    async run(ctx, [duration]) {
      const ms = parseDuration(duration!);
      if (ms === null)
        throw new UsageError(
          `Not a duration: "${duration}". Use 30s, 5m, 1h, 2d or ISO 8601 such as PT1H.`,
        );
      const state = await (await ctx.control()).clock.advance.mutate({ ms });
      ctx.out.result(state, () => `Clock advanced to ${describe(state)}`);
    },
  }),
  command({
    path: ['clock', 'set'],
    description:
      'Set the clock to a time (it keeps ticking from there, or stays frozen if it was frozen)',
    args: [{ name: 'time', description: 'ISO 8601, e.g. 2030-01-01T00:00:00Z' }],
    options: [
      { flags: '--frozen', description: 'freeze the clock at that time' },
      { flags: '--ticking', description: 'let the clock tick from that time (resumes it)' },
    ],
    examples: ['svc clock set 2026-01-05T09:00:00Z --frozen'],
    async run(ctx, [time], options) {
      if (Number.isNaN(Date.parse(time!)))
        throw new UsageError(`Not an ISO 8601 time: "${time}". Example: 2030-01-01T00:00:00Z`);
      if (options.frozen && options.ticking)
        throw new UsageError('Give --frozen or --ticking, not both.');
      const frozen = options.frozen ? true : options.ticking ? false : undefined;
      const state = await (
        await ctx.control()
      ).clock.set.mutate({
        to: time!,
        ...(frozen === undefined ? {} : { frozen }),
      });
      ctx.out.result(state, () => `Clock set to ${describe(state)}`);
    },
  }),
  command({
    path: ['clock', 'reset'],
    description: 'Go back to real time (a frozen clock ticks again)',
    async run(ctx) {
      const state = await (await ctx.control()).clock.reset.mutate();
      ctx.out.result(state, () => `Clock reset to ${describe(state)}`);
    },
  }),
  command({
    path: ['clock', 'freeze'],
    description: 'Stop the clock: only advance and set move it; timers fire on advance',
    async run(ctx) {
      const state = await (await ctx.control()).clock.freeze.mutate();
      ctx.out.result(state, () => `Clock frozen at ${describe(state)}`);
    },
  }),
  command({
    path: ['clock', 'resume'],
    description: 'Let a frozen clock tick again from where it stands',
    async run(ctx) {
      const state = await (await ctx.control()).clock.resume.mutate();
      ctx.out.result(state, () => `Clock resumed at ${describe(state)}`);
    },
  }),
]);
