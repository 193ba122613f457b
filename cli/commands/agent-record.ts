// svc agents record: the openai brain writes every request it sends and the answer it gets to a
// cassette, which agents with brain {provider: "replay", cassette} then answer from, offline.
// svc agents cassette load: a cassette file (recorded elsewhere, given by a colleague) into the
// daemon's cassettes: its folder, or in team mode the sandbox's store, where every daemon of the
// sandbox answers from it.
import { command, defineCommands, group } from '../command.js';
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
        `cassette ${chalk.cyan(cassette)} (in the daemon's cassette folder: SVC_CASSETTE_DIR, else ${ctx.dataDir}/cassettes) or, in team mode, in the sandbox's store`;
      ctx.out.result(options.stop ? { ...state, stopped: before } : state, () => {
        if (state.recording) return `Recording the openai brain to ${where(state.recording)}`;
        if (before)
          return `Stopped recording. The openai brain's requests and answers are in ${where(before)}; agents with brain {provider: "replay", cassette: "${before}"} answer from it.`;
        return 'Not recording. Start with: svc agents record --cassette NAME.json';
      });
    },
  }),
  group(['agents', 'cassette'], 'Cassettes of recorded model answers (the replay brain)'),
  command({
    path: ['agents', 'cassette', 'load'],
    description:
      "Load a cassette file as one of the daemon's cassettes (team mode: into the sandbox's store), replacing it",
    args: [{ name: 'file', description: 'the cassette file (JSON, as svc agents record writes)' }],
    options: [
      {
        flags: '--name <name.json>',
        description:
          "the cassette's name, as agents give it in brain.cassette (default: the file's name)",
      },
    ],
    examples: [
      'svc agents cassette load ./support.json',
      'svc agents cassette load ~/Downloads/recorded.json --name team/support.json',
    ],
    async run(ctx, [file], options) {
      const { readFile, stat } = await import('node:fs/promises');
      const { basename } = await import('node:path');
      const max = 16 * 1024 * 1024;
      let text: string;
      try {
        // Refused before it is read: the daemon would refuse it anyway.
        const size = (await stat(file!)).size;
        if (size > max) {
          throw new UsageError(
            `${file}: ${size} bytes, more than the 16 MiB a cassette may hold; split it into several cassettes.`,
          );
        }
        text = await readFile(file!, 'utf8');
      } catch (error) {
        if (error instanceof UsageError) throw error;
        throw new UsageError(
          `${file}: cannot read the cassette file (${(error as Error).message}).`,
        );
      }
      const name = options.name ?? basename(file!);
      const control = await ctx.control();
      const loaded = await control.agents.cassettes.load.mutate({ name, text });
      ctx.out.result(loaded, () => {
        const kept =
          loaded.cassettes_in === 'store'
            ? "the sandbox's store: every daemon of the sandbox answers from it"
            : `the daemon's cassette folder (SVC_CASSETTE_DIR, else ${ctx.dataDir}/cassettes)`;
        return `Loaded ${loaded.interactions} interaction${loaded.interactions === 1 ? '' : 's'} as cassette ${chalk.cyan(loaded.cassette)}, in ${kept}. Agents with brain {provider: "replay", cassette: "${loaded.cassette}"} answer from it.`;
      });
    },
  }),
]);
