// svc state export|import|reset: snapshots of the whole sandbox, saved and restored in place
// while the daemon keeps running (over the control channel).
import { resolve } from 'node:path';
import { command, defineCommands, group } from '../command.js';
import { CliError, UsageError } from '../errors.js';
import { chalk } from '../output.js';

/** The daemon's answer to an export over an existing file without force (409, param file). */
function refusedAsExisting(error: unknown): boolean {
  const data = (error as { name?: string; data?: { svc_code?: string; svc_param?: string } })?.data;
  return (
    (error as Error)?.name === 'TRPCClientError' &&
    data?.svc_code === 'conflict' &&
    data.svc_param === 'file'
  );
}

export default defineCommands([
  group(['state'], 'Save, restore and reset the whole sandbox (snapshots)'),
  command({
    path: ['state', 'export'],
    description: 'Write a consistent snapshot of the sandbox to FILE while the daemon serves',
    args: [{ name: 'file', description: 'where to write the snapshot (not in the data dir)' }],
    options: [{ flags: '--force', description: 'replace FILE if it exists' }],
    examples: ['svc state export before-test.svcsnap', 'svc state export ci.svcsnap --force'],
    async run(ctx, [file], options) {
      const path = resolve(file!);
      const control = await ctx.control();
      const exportTo = (force: boolean) => control.state.export.mutate({ file: path, force });
      // As svc workflows init: an existing file is replaced only when --force or a yes in a
      // terminal says so (without one, a usage error). The daemon decides first: a path inside
      // the data dir is refused whatever --force says, so the user is never told to force it.
      let written: Awaited<ReturnType<typeof exportTo>>;
      try {
        written = await exportTo(options.force === true);
      } catch (error) {
        if (options.force === true || !refusedAsExisting(error)) throw error;
        const { askConfirm, canPrompt } = await import('../dialogs.js');
        if (!canPrompt()) {
          const shown = /[\s'"$]/.test(file!) ? `'${file!.replace(/'/g, `'\\''`)}'` : file;
          throw new UsageError(
            `${file} exists; svc state export does not replace a file without --force. Replace it with: svc state export ${shown} --force`,
          );
        }
        const force = await askConfirm(
          '--force',
          `${file} exists. Replace it with the snapshot?`,
          false,
        );
        if (!force) throw new CliError(`Left ${file} as it was.`, 1, 'cancelled');
        written = await exportTo(true);
      }
      ctx.out.result(
        written,
        () =>
          `Snapshot written to ${chalk.bold(written.file)} (${written.bytes} bytes, svc ${written.svc_version}, store schema ${written.schema_version})`,
      );
    },
  }),
  command({
    path: ['state', 'import'],
    description:
      'Replace the sandbox with a snapshot: the daemon pauses, swaps its store and resumes',
    args: [{ name: 'file', description: 'a snapshot written by svc state export' }],
    options: [
      {
        flags: '--drop-secrets',
        description:
          "import a snapshot from another data dir: drop the secrets this data dir's key cannot open",
      },
    ],
    examples: [
      'svc state import before-test.svcsnap',
      'svc state import ci.svcsnap --drop-secrets',
    ],
    async run(ctx, [file], options) {
      const answer = await (
        await ctx.control()
      ).state.import.mutate({ file: resolve(file!), drop_secrets: options.dropSecrets === true });
      ctx.out.result(answer, () => {
        const lines = [
          `Imported ${answer.imported} (made by svc ${answer.snapshot.svc_version} at ${answer.snapshot.created_at}${answer.migrated ? `; store schema ${answer.snapshot.schema_version} migrated to ${answer.schema_version}` : ''})`,
        ];
        for (const dropped of answer.dropped_secrets)
          lines.push(chalk.yellow(`dropped ${dropped}`));
        for (const renewed of answer.new_secrets) {
          lines.push(`${renewed.what} replaced: ${chalk.bold(renewed.secret)} (shown once)`);
        }
        // A snapshot brings credentials: say which keys now open this sandbox.
        if (answer.keys.length === 0) lines.push('API keys brought: none');
        else lines.push(`API keys brought (${answer.keys.length}, valid here now):`);
        for (const key of answer.keys) {
          lines.push(
            `  ${key.id}  ${key.name}  scopes: ${key.scopes.join(' ')}${key.workspace_id ? `  workspace ${key.workspace_id}` : ''}`,
          );
        }
        if (answer.dropped_operator_keys > 0) {
          lines.push(
            chalk.yellow(
              `left out ${answer.dropped_operator_keys} operator credential(s) of the snapshot (the daemon's own stays the only one)`,
            ),
          );
        }
        return lines.join('\n');
      });
    },
  }),
  command({
    path: ['state', 'reset'],
    description:
      'Empty the sandbox, as on a first start (asks first in a terminal; --yes otherwise)',
    options: [{ flags: '--yes', description: 'do not ask for confirmation' }],
    examples: ['svc state reset --yes'],
    async run(ctx, _args, options) {
      if (options.yes !== true) {
        const { askConfirm, canPrompt } = await import('../dialogs.js');
        if (!canPrompt()) {
          throw new UsageError(
            'svc state reset deletes everything in the sandbox; pass --yes to confirm without a terminal.',
          );
        }
        const sure = await askConfirm(
          '--yes',
          'Delete every workspace, agent, workflow, run and event of this sandbox?',
          false,
        );
        if (!sure) {
          ctx.out.result({ reset: false }, () => 'Nothing was reset.');
          return;
        }
      }
      const answer = await (await ctx.control()).state.reset.mutate();
      ctx.out.result(answer, () => `The sandbox is empty again (data dir ${ctx.dataDir}).`);
    },
  }),
]);
