// svc clock show|advance|set|reset (sandbox only)
import { formatOffset, parseDuration } from '../../shared/duration.js';
import { command, defineCommands, group } from '../command.js';
import { UsageError } from '../errors.js';
import { chalk } from '../output.js';
import type { ClockState } from '../../shared/schemas/control-output.js';

const describe = (state: ClockState) =>
  `${chalk.cyan(state.now)}${state.offset_ms ? chalk.dim(` (real time ${state.real_now}, offset ${formatOffset(state.offset_ms)})`) : chalk.dim(' (real time)')}`;

export default defineCommands([
  group(['clock'], 'The sandbox clock: show, advance, set, reset'),
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
    description: 'Set the clock to a time (it keeps ticking from there)',
    args: [{ name: 'time', description: 'ISO 8601, e.g. 2030-01-01T00:00:00Z' }],
    async run(ctx, [time]) {
      if (Number.isNaN(Date.parse(time!)))
        throw new UsageError(`Not an ISO 8601 time: "${time}". Example: 2030-01-01T00:00:00Z`);
      const state = await (await ctx.control()).clock.set.mutate({ to: time! });
      ctx.out.result(state, () => `Clock set to ${describe(state)}`);
    },
  }),
  command({
    path: ['clock', 'reset'],
    description: 'Go back to real time',
    async run(ctx) {
      const state = await (await ctx.control()).clock.reset.mutate();
      ctx.out.result(state, () => `Clock reset to ${describe(state)}`);
    },
  }),
]);
