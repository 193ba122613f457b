// The completion scripts are written from the command table: every command, subcommand and flag
// the registry declares is offered, hidden commands are not, and each script is valid for its
// shell (bash checks its syntax with -n; zsh and fish are checked when installed).
import test from 'ava';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isGroup, type CommandSpec } from '../../cli/command.js';
import { describeCommands } from '../../cli/command-table.js';
import { argKind, completionModel, flagOf } from '../../cli/completion-model.js';
import { completionScript } from '../../cli/completion-script.js';
import { GLOBAL_OPTIONS } from '../../cli/global-options.js';
import { COMMANDS } from '../../cli/registry.js';
import { tempDir } from '../helpers/temp-dir.js';

const table = describeCommands(COMMANDS);
const model = completionModel(table, GLOBAL_OPTIONS);
const commands = COMMANDS.filter((entry): entry is CommandSpec => !isGroup(entry));

/** The shell's syntax check (-n): its complaint, '' when it accepts, undefined when absent. */
function syntaxError(shell: string, script: string): string | undefined {
  const file = join(tempDir('svc-completion-'), `svc.${shell}`);
  writeFileSync(file, script);
  const result = spawnSync(shell, ['-n', file], { encoding: 'utf8' });
  if (result.error) return undefined;
  return result.status === 0 ? '' : result.stderr || `exit ${result.status}`;
}

test('bash: every subcommand and flag of the registry, in the case arms of its path', (t) => {
  const script = completionScript('bash', model);
  for (const command of commands.filter((c) => !c.hidden)) {
    const parent = command.path.slice(0, -1).join(' ');
    const arm = new RegExp(`^    '${parent}'\\) echo '([^']*)' ;;$`, 'm').exec(
      script.slice(0, script.indexOf('_svc_flags()')),
    );
    t.truthy(arm, `children of "${parent}"`);
    t.true(arm![1]!.split(' ').includes(command.path.at(-1)!), `${command.path.join(' ')}`);
    for (const option of command.options ?? [])
      for (const name of flagOf(option).names)
        t.true(
          script.includes(`'${command.path.join(' ')}') echo '`) &&
            new RegExp(`'${command.path.join(' ')}'\\) echo '[^']*${name}( |')`).test(script),
          `${command.path.join(' ')} ${name}`,
        );
  }
  t.true(script.includes('complete -F _svc svc'));
  t.true(script.includes("'daemon start|--env') echo 'words:sandbox production'"));
  t.true(script.includes("*'|--data-dir') echo 'dir'"));
  t.true(script.includes("'workflows get|0') echo workflows"));
  t.true(script.includes("'workflows execution|1') echo runs"));
  t.true(script.includes("'fixtures apply|0') echo file"));
  t.is(syntaxError('bash', script), '');
});

test('hidden commands (svc __complete) are in the table but never offered', (t) => {
  t.true(table.commands.some((c) => c.path[0] === '__complete' && c.hidden === true));
  for (const shell of ['bash', 'zsh', 'fish'] as const)
    t.false(completionScript(shell, model).includes("'__complete'"), shell);
  t.false(model.nodes[0]!.children.some((child) => child.word.startsWith('__')));
});

test('zsh: the same lookups, handed to compadd; loads from fpath or by source', (t) => {
  const script = completionScript('zsh', model);
  t.true(script.startsWith('#compdef svc\n'));
  t.true(script.includes("    'workflows') echo 'list get create"));
  t.true(script.includes('compadd -- ${=_svc_list}'));
  t.true(script.includes('compdef _svc svc'));
  const error = syntaxError('zsh', script);
  if (error === undefined) t.log('zsh is not installed here: its syntax check is skipped');
  else t.is(error, '');
});

test('fish: one complete line per subcommand, flag and id argument', (t) => {
  const script = completionScript('fish', model);
  t.true(script.includes("complete -c svc -f -n '__svc_at \\'\\'' -a 'workflows'"));
  t.true(script.includes("-n '__svc_at \\'daemon start\\'' -l env -x -a 'sandbox production'"));
  t.true(script.includes("-n '__svc_at \\'logs\\'' -s f -l follow"));
  t.true(
    script.includes(
      "complete -c svc -f -n '__svc_at \\'workflows get\\'; and __svc_args_are 0' -a '(__svc_ids workflows)'",
    ),
  );
  t.true(script.includes('complete -c svc -l data-dir -r -F'));
  const error = syntaxError('fish', script);
  if (error === undefined) t.log('fish is not installed here: its syntax check is skipped');
  else t.is(error, '');
});

test('an argument names ids by its name and group, files by name, else nothing', (t) => {
  const find = (path: string) => table.commands.find((c) => c.path.join(' ') === path)!;
  t.is(argKind(find('workflows run'), 'id'), 'workflows');
  t.is(argKind(find('agents execute'), 'id'), 'agents');
  t.is(argKind(find('webhooks replay'), 'id'), 'webhooks');
  t.is(argKind(find('workflows rerun'), 'execution'), 'runs');
  t.is(argKind(find('open'), 'id'), 'objects');
  t.is(argKind(find('state export'), 'file'), 'file');
  t.is(argKind(find('secrets set'), 'name'), '');
  t.deepEqual(flagOf({ flags: '-n, --lines <count>', description: '' }), {
    names: ['-n', '--lines'],
    description: '',
    value: 'text',
  });
});
