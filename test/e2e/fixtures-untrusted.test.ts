// Fixture files are untrusted input (they live in repositories people clone): the files they
// name stay inside the fixture's folder (paths as written, then symlinks resolved), a key given
// twice is refused naming both places, two entries setting one secret are refused naming both,
// and the clock moves of `then` are bounded. Each case is the one reported, refused before
// anything is written, through `svc fixtures apply`, `svc daemon start --fixtures` and a raw
// control-channel call alike.
import test from 'ava';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { control, trpc } from '../helpers/api.js';
import { runCli } from '../helpers/daemon.js';
import { sharedDaemon } from '../helpers/setup.js';
import { tempDir } from '../helpers/temp-dir.js';

const d = sharedDaemon(test);

/** A private note outside the fixture's folder, and the folder a cloned repository put it in. */
let outside: string;
let folder: string;

test.before(() => {
  const home = tempDir('svc-fixture-home-');
  outside = join(home, 'notes', 'private.md');
  mkdirSync(join(home, 'notes'));
  writeFileSync(outside, '# Private\nthe text a webhook step must never post\n');
  writeFileSync(
    join(home, 'notes', 'flow.yaml'),
    'name: Outside\nsteps: [{id: s, name: S, type: wait, config: {duration: 1s}}]\n',
  );
  folder = join(home, 'projects', 'cloned');
  mkdirSync(join(folder, 'docs'), { recursive: true });
  writeFileSync(join(folder, 'docs', 'faq.md'), '# FAQ\nRefunds take 5 days.\n');
  symlinkSync(outside, join(folder, 'docs', 'linked.md'));
  symlinkSync(join(home, 'notes'), join(folder, 'notes-link'));
  symlinkSync(join(folder, 'docs', 'faq.md'), join(folder, 'faq-link.md'));
});

function write(name: string, text: string): string {
  const file = join(folder, name);
  writeFileSync(file, text);
  return file;
}

/**
 * What exists, over the control channel and REST (what `svc workspaces list` and `svc agents
 * list` read; those commands are tested in their own files): checked before and after a
 * refused fixture.
 */
async function counts(): Promise<{ workspaces: number; agents: number }> {
  const { key, workspaceId } = await d.operator();
  const workspaces = (await control<unknown[]>(d, 'workspaces.list')).length;
  const agents = await d.callJson('GET', '/v1/agents?limit=100', undefined, {
    key,
    tenant: workspaceId,
  });
  return { workspaces, agents: agents.body.data.length };
}

const agentWith = (knowledge: string) =>
  `agents:\n  leaky: {name: Leaky, ontology: retail-v1, knowledge: [${knowledge}]}\n`;

test.serial('a fixture cannot name a file outside its own folder', async (t) => {
  const climbing = relative(folder, outside);
  t.true(climbing.startsWith('..'), climbing);
  const cases: [string, string, RegExp][] = [
    [
      'climb.yaml',
      agentWith(climbing),
      /agents\.leaky\.knowledge\[0\]: \.\.\/\.\.\/notes\/private\.md leads out of the fixture file's folder/,
    ],
    [
      'absolute.yaml',
      agentWith(`{path: "${outside}"}`),
      /agents\.leaky\.knowledge\[0\]: \/.*private\.md is an absolute path/,
    ],
    [
      'symlink.yaml',
      agentWith('docs/linked.md'),
      /agents\.leaky\.knowledge\[0\]: docs\/linked\.md leads through a symbolic link to .*private\.md, outside the fixture file's folder/,
    ],
    [
      'linked-folder.yaml',
      agentWith('notes-link/private.md'),
      /agents\.leaky\.knowledge\[0\]: notes-link\/private\.md leads through a symbolic link/,
    ],
    [
      'workflow-climb.yaml',
      `workflows:\n  w: {file: ../../notes/flow.yaml}\n`,
      /workflows\.w\.file: \.\.\/\.\.\/notes\/flow\.yaml leads out of the fixture file's folder/,
    ],
    [
      'workflow-symlink.yaml',
      `workflows:\n  w: {file: notes-link/flow.yaml}\n`,
      /workflows\.w\.file: notes-link\/flow\.yaml leads through a symbolic link/,
    ],
  ];
  const before = await counts();
  for (const [name, text, message] of cases) {
    const result = await d.cli(['fixtures', 'apply', write(name, text), '--json']);
    t.is(result.code, 1, `${name}: ${result.stdout}${result.stderr}`);
    t.regex(result.stdout + result.stderr, message, name);
    t.regex(result.stdout + result.stderr, /Nothing was applied/, name);
    t.notRegex(result.stdout + result.stderr, /never post/, `${name}: the text was not read out`);
  }
  t.deepEqual(await counts(), before, 'nothing was created');

  // Inside the folder is fine: `..` that stays inside, and a symlink to a file inside.
  const inside = await d.cli([
    'fixtures',
    'apply',
    write('inside.yaml', agentWith('docs/../docs/faq.md, faq-link.md')),
    '--dry-run',
    '--json',
  ]);
  t.is(inside.code, 0, inside.stderr);
  t.is(inside.json().plan[0].action, 'create');
});

test.serial('the daemon refuses such paths from any client of the control channel', async (t) => {
  const before = await counts();
  const content_base64 = Buffer.from('stolen text').toString('base64');
  for (const path of ['../../notes/private.md', '/etc/hostname', 'docs/../../x.md']) {
    const answer = await trpc(d, 'fixtures.applyFixture', {
      fixture: { agents: { leaky: { name: 'Leaky', ontology: 'retail-v1', knowledge: [path] } } },
      files: { [path]: { content_base64 } },
    });
    t.not(answer.status, 200, path);
    const message = answer.error?.message ?? answer.text;
    t.regex(message, /^agents\.leaky\.knowledge\[0\]: /, path);
    t.regex(message, /(leads out of|is an absolute path)/, path);
  }
  t.deepEqual(await counts(), before);
});

test.serial('svc daemon start --fixtures refuses the same fixture', async (t) => {
  const dataDir = tempDir('svc-e2e-fixtures-start-');
  const env = { SVC_DATA_DIR: dataDir };
  const file = write('start.yaml', agentWith(relative(folder, outside)));
  try {
    const started = await runCli(['daemon', 'start', '--port', '0', '--json', '--fixtures', file], {
      env,
    });
    t.is(started.code, 1, started.stdout + started.stderr);
    t.regex(
      started.stdout + started.stderr,
      /agents\.leaky\.knowledge\[0\]: .*leads out of the fixture file's folder/,
    );
  } finally {
    await runCli(['daemon', 'stop'], { env });
  }
});

test.serial('a JSON or YAML fixture giving an entry twice is refused, naming both', async (t) => {
  const before = await counts();
  const json = write(
    'twice.json',
    [
      '{',
      '  "agents": {',
      '    "support": {"name": "First", "ontology": "retail-v1"},',
      '    "support": {"name": "Second", "ontology": "retail-v1"}',
      '  }',
      '}',
    ].join('\n'),
  );
  const fromJson = await d.cli(['fixtures', 'apply', json, '--json']);
  t.is(fromJson.code, 2, fromJson.stdout + fromJson.stderr);
  t.regex(
    fromJson.stdout + fromJson.stderr,
    /twice\.json: agents\.support is given twice \(line 3, column 5 and line 4, column 5\)/,
  );

  const yaml = write(
    'twice.yaml',
    'agents:\n  support: {name: First, ontology: retail-v1}\n  other: {name: O, ontology: retail-v1}\n  support: {name: Second, ontology: retail-v1}\n',
  );
  const fromYaml = await d.cli(['fixtures', 'apply', yaml, '--json']);
  t.is(fromYaml.code, 2, fromYaml.stdout + fromYaml.stderr);
  t.regex(
    fromYaml.stdout + fromYaml.stderr,
    /twice\.yaml: agents\.support is given twice \(line 2, column 3 and line 4, column 3\)/,
  );

  // Deeper keys too (JSON.parse would keep the last name without a word).
  const field = write(
    'field-twice.json',
    '{"agents": {"a": {"name": "One", "ontology": "retail-v1",\n "name": "Two"}}}',
  );
  const fromField = await d.cli(['fixtures', 'apply', field, '--json']);
  t.is(fromField.code, 2);
  t.regex(
    fromField.stdout + fromField.stderr,
    /agents\.a\.name is given twice \(line 1, .* line 2/,
  );
  t.deepEqual(await counts(), before);
});

test.serial(
  'two entries setting one secret in one workspace are refused, naming both',
  async (t) => {
    const file = write(
      'secret-twice.yaml',
      [
        'workspaces:',
        '  acme: {name: Acme secrets, tier: free}',
        'secrets:',
        '  crm: {name: CRM_TOKEN, value: first, workspace: "${workspaces.acme.id}"}',
        '  CRM_TOKEN: {value: second, workspace: "${workspaces.acme.id}"}',
        '',
      ].join('\n'),
    );
    const before = await counts();
    for (const args of [['--dry-run'], []]) {
      const result = await d.cli(['fixtures', 'apply', file, '--json', ...args]);
      t.is(result.code, 1, `${args.join(' ')}: ${result.stdout}${result.stderr}`);
      t.regex(
        result.stdout + result.stderr,
        /secrets\.(CRM_TOKEN|crm): sets the secret CRM_TOKEN in the same workspace as secrets\.(crm|CRM_TOKEN)/,
      );
    }
    t.deepEqual(await counts(), before, 'not even the workspace was created');

    // The default workspace written two ways (left out, and by its id) is one workspace.
    const { workspaceId } = await d.operator();
    const defaults = write(
      'secret-default.yaml',
      `secrets:\n  a: {name: TOKEN, value: x}\n  b: {name: TOKEN, value: y, workspace: ${workspaceId}}\n`,
    );
    const same = await d.cli(['fixtures', 'apply', defaults, '--dry-run', '--json']);
    t.is(same.code, 1, same.stdout);
    t.regex(same.stdout + same.stderr, /secrets\.b: sets the secret TOKEN .* as secrets\.a/);

    // One name in two workspaces is two secrets.
    const apart = write(
      'secret-apart.yaml',
      'workspaces:\n  one: {name: One, tier: free}\n  two: {name: Two, tier: free}\nsecrets:\n  a: {name: TOKEN, value: x, workspace: "${workspaces.one.id}"}\n  b: {name: TOKEN, value: y, workspace: "${workspaces.two.id}"}\n',
    );
    const fine = await d.cli(['fixtures', 'apply', apart, '--dry-run', '--json']);
    t.is(fine.code, 0, fine.stdout + fine.stderr);
  },
);

/** The clock's offset, over the control channel as `svc clock show` reads it. */
async function clockOffset(): Promise<number> {
  return (await control<{ offset_ms: number }>(d, 'clock.show')).offset_ms;
}

test.serial('a fixture moves the clock one day at most in all', async (t) => {
  const before = await counts();
  const offset = await clockOffset();
  const far = write(
    'far.yaml',
    'workspaces:\n  w: {name: Far, tier: free}\nthen:\n  - advance_clock: 100000d\n',
  );
  const refused = await d.cli(['fixtures', 'apply', far, '--json']);
  t.is(refused.code, 1, refused.stdout + refused.stderr);
  t.regex(
    refused.json().error.message,
    /then\[0\]\.advance_clock: "100000d" would move the clock 100000d in this file's then actions; a fixture moves it 1d at most in all/,
  );
  const split = write('split.yaml', 'then:\n  - advance_clock: 13h\n  - advance_clock: PT12H\n');
  const splitResult = await d.cli(['fixtures', 'apply', split, '--json']);
  t.is(splitResult.code, 1);
  t.regex(
    splitResult.json().error.message,
    /then\[1\]\.advance_clock: "PT12H" would move the clock 1d 1h/,
  );
  t.deepEqual(await counts(), before, 'checked before anything was written');
  t.is(await clockOffset(), offset, 'the clock did not move');
});

test.serial(
  'a per-second schedule: the clock moves through 1000 due times at most, then stops',
  async (t) => {
    // A thousand runs on a 2-core machine: at load ~20 the apply took minutes. ava's own 5
    // minute guard bounds this test; the CLI call gets as long (its usual bound is 60 s).
    const file = write(
      'per-second.yaml',
      [
        'agents:',
        '  ticker: {name: Ticker, ontology: retail-v1, deploy: true}',
        'workflows:',
        '  tick:',
        '    name: Every second',
        '    status: active',
        "    trigger: {type: schedule, config: {cron: '* * * * * *'}}",
        '    steps: [{id: s, name: S, type: agent_action, agent_id: "${agents.ticker.id}", config: {action: summarize}}]',
        'then:',
        '  - advance_clock: 1h',
        '',
      ].join('\n'),
    );
    const offset = await clockOffset();
    const started = Date.now();
    const result = await d.cli(['fixtures', 'apply', file, '--json'], { timeoutMs: 300_000 });
    const seconds = (Date.now() - started) / 1000;
    t.log(`apply with a per-second schedule and advance_clock 1h answered in ${seconds} s`);
    t.is(result.code, 1, result.stdout + result.stderr);
    t.regex(
      result.stdout + result.stderr,
      /then\[0\]: the clock went through 1000 due times .* and stopped at .*; the entries are in place/,
    );
    const moved = (await clockOffset()) - offset;
    t.log(`the clock moved ${moved / 1000} s of 3600 s`);
    t.true(moved >= 500_000 && moved < 3_600_000, `moved ${moved} ms`);

    // The entries stay (then runs after them): stop the per-second schedule for what follows.
    const { key, workspaceId } = await d.operator();
    const auth = { key, tenant: workspaceId };
    const listed = await d.callJson('GET', '/v1/workflows?limit=100', undefined, auth);
    const tick = (listed.body.data as { id: string; name: string }[]).find(
      (workflow) => workflow.name === 'Every second',
    );
    t.truthy(tick, listed.text);
    const removed = await d.callJson('DELETE', `/v1/workflows/${tick!.id}`, undefined, auth);
    t.true(removed.status < 300, removed.text);
  },
);
