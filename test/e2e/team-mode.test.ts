// Team mode, the parts any store shares (issue 53): the store and sandbox are checked before a
// daemon is spawned (usage errors, exit 2), svc status says where the sandbox lives, and a
// sandbox opened with another secret key stops the daemon at start with what to do.
import test from 'ava';
import { copyFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { assertExit, runCli } from '../helpers/daemon.js';
import { tempDir } from '../helpers/temp-dir.js';

const cli = (dataDir: string, args: string[], env: NodeJS.ProcessEnv = {}) =>
  runCli(args, { env: { SVC_DATA_DIR: dataDir, SVC_STORE_URL: '', ...env } });

test('a store URL or sandbox name that cannot be used is a usage error before any daemon starts', async (t) => {
  const dataDir = tempDir('svc-team-usage-');
  const cases: [string[], NodeJS.ProcessEnv, RegExp][] = [
    [['--store', 'mysql://svc@db/svc'], {}, /must be a PostgreSQL URL.*got a mysql: URL/],
    [['--store', 'postgres://svc:hunter2@db'], {}, /must name one database/],
    [[], { SVC_STORE_URL: 'postgres://db/svc' }, /names no user/],
    [['--store', 'postgres://svc@db/svc', '--sandbox', 'Team-QA'], {}, /A sandbox name is 1 to 63/],
    [['--sandbox', 'qa'], {}, /give the store too: --store postgres:/],
    [['--store', 'postgres://svc@db/svc?sandbox=qa', '--sandbox', 'ci'], {}, /give one of them/],
  ];
  for (const [args, env, message] of cases) {
    const started = await cli(dataDir, ['daemon', 'start', '--port', '0', ...args], env);
    assertExit(t, started, 2);
    t.regex(started.stderr, message);
    t.false(started.stderr.includes('hunter2'), 'never the password');
    t.false(/\n\s+at /.test(started.stderr), 'no stack');
  }
  const status = await cli(dataDir, ['daemon', 'status', '--json']);
  t.is(status.json().running, false, 'no daemon was started');
});

test('svc status and svc daemon status say where the sandbox lives; another secret key is refused at start', async (t) => {
  const dataDir = tempDir('svc-team-key-');
  const started = await cli(dataDir, ['daemon', 'start', '--port', '0', '--json']);
  assertExit(t, started, 0);
  try {
    const status = (await cli(dataDir, ['status', '--json'])).json();
    t.deepEqual(status.store, {
      kind: 'sqlite',
      location: join(dataDir, 'svc.db'),
      sandbox: null,
    });
    const human = await cli(dataDir, ['daemon', 'status']);
    t.regex(human.stdout, new RegExp(`store +SQLite ${join(dataDir, 'svc.db')}`));
  } finally {
    assertExit(t, await cli(dataDir, ['daemon', 'stop']), 0);
  }

  // Another key: refused with the file, the option and the variable; nothing else changes.
  const other = join(tempDir('svc-team-otherkey-'), 'other.key');
  writeFileSync(other, randomBytes(32).toString('base64') + '\n', { mode: 0o600 });
  const refused = await cli(dataDir, [
    'daemon',
    'start',
    '--port',
    '0',
    '--secret-key-file',
    other,
  ]);
  assertExit(t, refused, 1);
  t.regex(refused.stderr, /The secret key .*other\.key is not the key of the store/);
  t.regex(refused.stderr, /--secret-key-file \(SVC_SECRET_KEY_FILE\)/);
  // The same key under another name opens it, given by the variable.
  const copy = join(tempDir('svc-team-copykey-'), 'copy.key');
  copyFileSync(join(dataDir, 'secret.key'), copy);
  const again = await cli(dataDir, ['daemon', 'start', '--port', '0'], {
    SVC_SECRET_KEY_FILE: copy,
  });
  assertExit(t, again, 0);
  assertExit(t, await cli(dataDir, ['daemon', 'stop']), 0);
});
