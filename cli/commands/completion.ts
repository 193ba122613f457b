// svc completion bash|zsh|fish prints a completion script written from the command table; the
// hidden svc __complete <kind> lists ids of the running daemon for it, and prints nothing (exit
// 0) when no daemon answers, so a TAB never shows an error or waits long.
import { command, defineCommands } from '../command.js';
import { UsageError } from '../errors.js';

/**
 * How long a TAB may wait for the daemon's ids before it offers none: 2 s, or SVC_COMPLETE_TIMEOUT_MS
 * (a slow or busy machine; the tests, which must not depend on the machine's speed).
 */
function idsTimeoutMs(env: NodeJS.ProcessEnv): number {
  const given = Number(env.SVC_COMPLETE_TIMEOUT_MS);
  return Number.isInteger(given) && given > 0 ? given : 2000;
}

export default defineCommands([
  command({
    path: ['completion'],
    description: 'Print a shell completion script: commands, flags and ids of the running daemon',
    args: [{ name: 'shell', description: 'bash, zsh or fish' }],
    examples: [
      'svc completion bash > ~/.local/share/bash-completion/completions/svc',
      'svc completion zsh > ~/.zfunc/_svc',
      'svc completion fish > ~/.config/fish/completions/svc.fish',
    ],
    async run(ctx, [shell]) {
      const [{ SHELLS, completionScript }, { completionModel }, { readCommandTable }] =
        await Promise.all([
          import('../completion-script.js'),
          import('../completion-model.js'),
          import('../command-table.js'),
        ]);
      const known = SHELLS.find((name) => name === shell);
      if (!known)
        throw new UsageError(
          `No completion for "${shell}": give one of ${SHELLS.join(', ')} (svc completion bash).`,
        );
      const { GLOBAL_OPTIONS } = await import('../global-options.js');
      const script = completionScript(
        known,
        completionModel(await readCommandTable(), GLOBAL_OPTIONS),
      );
      ctx.out.result({ shell: known, script }, () => script.trimEnd());
    },
  }),
  command({
    path: ['__complete'],
    description: 'Ids for shell completion, one a line (used by the completion scripts)',
    hidden: true,
    args: [
      { name: 'kind', description: 'workflows, agents, webhooks, objects, or runs' },
      {
        name: 'workflow',
        description: 'for runs: the workflow whose runs to list',
        required: false,
      },
    ],
    async run(ctx, [kind, workflow]) {
      const { listIds } = await import('../completion-ids.js');
      const timer = setTimeout(() => process.exit(0), idsTimeoutMs(process.env));
      timer.unref();
      // Whatever goes wrong (no daemon, a stale record, an unknown kind), a TAB offers nothing.
      const ids = await listIds(ctx, kind!, workflow).catch(() => []);
      clearTimeout(timer);
      if (ids.length) process.stdout.write(ids.join('\n') + '\n');
    },
  }),
]);
