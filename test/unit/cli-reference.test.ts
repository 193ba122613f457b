// docs/cli.md is the reference the command table gives now (issue 55, point 12): a command, an
// option or a description changed without `npm run docs:cli` fails here, so it cannot drift.
import test from 'ava';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { CLI_REFERENCE_FILE, renderCliReference } from '../../cli/cli-reference.js';
import { describeCommands } from '../../cli/command-table.js';
import { GLOBAL_OPTIONS } from '../../cli/global-options.js';
import { COMMANDS } from '../../cli/registry.js';
import { ROOT } from '../helpers/daemon.js';

test('docs/cli.md is current with the command table (else: npm run build && npm run docs:cli)', async (t) => {
  const file = join(ROOT, CLI_REFERENCE_FILE);
  const config = (await resolveConfig(file)) ?? {};
  const expected = await format(renderCliReference(describeCommands(COMMANDS), GLOBAL_OPTIONS), {
    ...config,
    parser: 'markdown',
  });
  t.is(readFileSync(file, 'utf8'), expected);
});

test('the reference has every command the CLI shows, with its options', (t) => {
  const text = readFileSync(join(ROOT, CLI_REFERENCE_FILE), 'utf8');
  const shown = describeCommands(COMMANDS).commands.filter((command) => !command.hidden);
  t.true(shown.length > 50);
  for (const command of shown) {
    t.true(text.includes(`### svc ${command.path.join(' ')}\n`), command.path.join(' '));
  }
  t.true(text.includes('### svc workflows apply\n'));
  t.regex(text, /`--autonomy <level>`: autonomy level\b.*\(one of: `L1`, `L2`, `L3`, `L4`\)/);
});
