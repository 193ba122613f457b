// svc agents record: the openai brain writes every request it sends and the answer it gets to a
// cassette, which agents with brain {provider: "replay", cassette} then answer from, offline.
import { command, defineCommands } from '../command.js';
import { UsageError } from '../errors.js';
import { chalk } from '../output.js';

export default defineCommands([
  command({
    path: ['agents', 'record'],
    description:
      "Record the openai brain's requests and answers to a cassette (replayed by the replay brain)",
    options: [
      {
        flags: '--cassette <file.json>',
        description: 'start recording to this cassette (relative to the cassette folder)',
      },
      { flags: '--stop', description: 'stop recording' },
    ],
    examples: [
      'svc agents record --cassette support.json',
      'svc agents record --stop',
      'svc agents record   # shows whether it records, and where',
    ],
    async run(ctx, _args, options) {
      if (options.stop && options.cassette)
        throw new UsageError('Give --cassette or --stop, not both.');
      const control = await ctx.control();
      // Which cassette a stop closes: asked first, since the stopped state names none.
      const before = options.stop ? (await control.agents.recording.query()).recording : null;
      const state = options.stop
        ? await control.agents.record.mutate({ stop: true })
        : options.cassette
          ? await control.agents.record.mutate({ cassette: options.cassette })
          : await control.agents.recording.query();
      const where = (cassette: string) =>
        `cassette ${chalk.cyan(cassette)} (in the daemon's cassette folder: SVC_CASSETTE_DIR, else ${ctx.dataDir}/cassettes)`;
      ctx.out.result(options.stop ? { ...state, stopped: before } : state, () => {
        if (state.recording) return `Recording the openai brain to ${where(state.recording)}`;
        if (before)
          return `Stopped recording. The openai brain's requests and answers are in ${where(before)}; agents with brain {provider: "replay", cassette: "${before}"} answer from it.`;
        return 'Not recording. Start with: svc agents record --cassette NAME.json';
      });
    },
  }),
]);
