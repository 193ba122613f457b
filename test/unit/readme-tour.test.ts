// The README's tour as the e2e test reads it: commands split as bash would (continuations,
// here-documents), `#>` lines as patterns over one printed line, a script that stops at the
// first failing command; and README.md's own tour and YAML examples, checked without a daemon.
import test from 'ava';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ROOT } from '../helpers/daemon.js';
import { expectation, tourScript, tourSteps } from '../helpers/readme-tour.js';
import { tempDir } from '../helpers/temp-dir.js';

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

const SAMPLE = [
  'Prose is not run.',
  '```sh',
  'echo not part of the tour',
  '```',
  '```sh tour',
  '# a comment',
  'x=$(echo one)      # a variable for later',
  '#> nothing is printed',
  'echo "$x" \\',
  '  two',
  '#> one ... two',
  "cat > f.yaml <<'YAML'",
  'a: 1',
  '#> not an expectation inside a here-document',
  'YAML',
  '```',
].join('\n');

test('commands with continuations and here-documents, and the #> lines under each', (t) => {
  t.deepEqual(tourSteps(SAMPLE), [
    {
      command: 'x=$(echo one)      # a variable for later',
      line: 7,
      expect: ['nothing is printed'],
    },
    { command: 'echo "$x" \\\n  two', line: 9, expect: ['one ... two'] },
    {
      command: "cat > f.yaml <<'YAML'\na: 1\n#> not an expectation inside a here-document\nYAML",
      line: 12,
      expect: [],
    },
  ]);
  t.throws(() => tourSteps('```sh tour\necho open'), { message: /not closed/ });
});

test('a #> line: ... for anything, any run of spaces for table padding, the rest literal', (t) => {
  const line = expectation('del_...  workflow.execution.completed  delivered  200   1 ...');
  t.regex('ID  EVENT\ndel_0Vc9  workflow.execution.completed  delivered  200   1         -', line);
  t.notRegex('del_0Vc9  workflow.execution.completed  failed  503   1  -', line);
  // Dots, brackets and parentheses are literal.
  t.regex('Settled (waited 93 ms)', expectation('Settled (waited ...)'));
  t.notRegex('Settled waited 93 ms', expectation('Settled (waited ...)'));
  t.notRegex('a.b', expectation('a+b'));
});

test('the script keeps variables from one command to the next and stops at the first failure', (t) => {
  const out = tempDir('svc-tour-unit-');
  const steps = tourSteps(SAMPLE.concat('\n```sh tour\nfalse\necho after\n```'));
  const script = join(out, 'tour.sh');
  writeFileSync(script, tourScript(steps, out));
  const run = spawnSync('bash', [script], { cwd: out, encoding: 'utf8' });
  t.is(run.status, 90);
  t.is(readFileSync(join(out, '1.out'), 'utf8'), 'one two\n');
  t.is(
    readFileSync(join(out, 'f.yaml'), 'utf8'),
    'a: 1\n#> not an expectation inside a here-document\n',
  );
  t.is(readFileSync(join(out, '3.rc'), 'utf8').trim(), '1');
  t.false(existsSync(join(out, '4.rc')));
});

test("README.md's tour starts a daemon, stops it, and every command says what it prints or is silent", (t) => {
  const steps = tourSteps(README);
  t.true(steps.length > 20, `${steps.length} commands`);
  t.is(steps[0]!.command.split(/\s+#/)[0]!.trim(), 'svc daemon start');
  t.is(steps.at(-1)!.command, 'svc daemon stop');
  t.true(steps.filter((step) => step.expect.length).length > 15);
});

test("every YAML example of README.md and docs/ parses (the daemon's parser, the yaml package)", (t) => {
  // Most examples moved from the README to docs/ by topic (issue 55, point 12).
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => readFileSync(join(ROOT, 'docs', name), 'utf8'));
  const blocks = [README, ...docs].flatMap((text) =>
    [...text.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)].map((match) => match[1]!),
  );
  t.true(blocks.length >= 2);
  for (const block of blocks) t.notThrows(() => parse(block), block.split('\n')[0]);
});

test('an unquoted ${...} reference in a flow map is refused with the fix, not only the parser words', async (t) => {
  const { parseYamlText } = await import('../../cli/document-text.js');
  const error = await t.throwsAsync(
    parseYamlText('secrets:\n  crm: { name: CRM, workspace: ${workspaces.acme.id} }\n', 'f.yaml'),
  );
  t.regex(error!.message, /^f\.yaml: not valid YAML at line 2, column \d+ \(.*\)\./);
  t.true(error!.message.endsWith("quote a ${...} reference: workspace: '${workspaces.acme.id}'."));
  // Other YAML errors keep the parser's words alone.
  const other = await t.throwsAsync(parseYamlText('a: [1, 2\n', 'g.yaml'));
  t.false(other!.message.includes('quote'));
});
