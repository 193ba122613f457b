// npm run docs:cli: writes docs/cli.md from the built command table (run npm run build first),
// formatted by prettier as the format check wants it. test/unit/cli-reference checks it is current.
import { writeFileSync } from 'node:fs';
import { format, resolveConfig } from 'prettier';

const { COMMANDS } = await import('../dist/cli/registry.js');
const { describeCommands } = await import('../dist/cli/command-table.js');
const { GLOBAL_OPTIONS } = await import('../dist/cli/global-options.js');
const { CLI_REFERENCE_FILE, renderCliReference } = await import('../dist/cli/cli-reference.js');
const target = new URL(`../${CLI_REFERENCE_FILE}`, import.meta.url);
const text = renderCliReference(describeCommands(COMMANDS), GLOBAL_OPTIONS);
const config = (await resolveConfig(target)) ?? {};
writeFileSync(target, await format(text, { ...config, parser: 'markdown' }));
console.log(`wrote ${CLI_REFERENCE_FILE}`);
