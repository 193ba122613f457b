// `svc state export FILE` never replaces a file silently (issue 41): without --force and without a
// terminal it is a usage error (exit 2) that says so and gives the command that replaces it; in a
// terminal it asks, and a no leaves the file as it was; --force replaces it.
import test from 'ava';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertExit, SVC_BIN } from '../helpers/daemon.js';
import { sharedDaemon } from '../helpers/setup.js';
import { inTerminal } from '../helpers/terminal.js';
import { tempDir } from '../helpers/temp-dir.js';

const d = sharedDaemon(test);
const SQLITE = 'SQLite format 3';

function isSnapshot(file: string): boolean {
  return readFileSync(file).subarray(0, SQLITE.length).toString() === SQLITE;
}

test('without --force an existing file is refused with exit 2 and the command that replaces it', async (t) => {
  const dir = tempDir('svc-export-');
  const file = join(dir, 'notes.txt');
  writeFileSync(file, 'keep me\n');

  const refused = await d.cli(['state', 'export', file]);
  assertExit(t, refused, 2);
  t.is(
    refused.stderr.trim(),
    `Error: ${file} exists; svc state export does not replace a file without --force. Replace it with: svc state export ${file} --force`,
  );
  t.is(refused.stdout, '');
  t.is(readFileSync(file, 'utf8'), 'keep me\n', 'the file is as it was');

  const asJson = await d.cli(['state', 'export', file, '--json']);
  assertExit(t, asJson, 2);
  t.is(asJson.json().error.code, 'usage_error');
  t.regex(asJson.json().error.message, /does not replace a file without --force/);
  t.is(readFileSync(file, 'utf8'), 'keep me\n');

  const spaced = join(dir, 'my notes.txt');
  writeFileSync(spaced, 'keep me too\n');
  const quoted = await d.cli(['state', 'export', spaced]);
  assertExit(t, quoted, 2);
  t.true(quoted.stderr.includes(`svc state export '${spaced}' --force`), quoted.stderr);

  const forced = await d.cli(['state', 'export', file, '--force', '--json']);
  assertExit(t, forced, 0);
  t.true(isSnapshot(file), 'replaced with --force');

  const fresh = join(dir, 'fresh.svcsnap');
  assertExit(t, await d.cli(['state', 'export', fresh]), 0);
  t.true(existsSync(fresh) && isSnapshot(fresh), 'a new file needs no --force');
});

test('in a terminal it asks: no leaves the file, yes replaces it', async (t) => {
  const dir = tempDir('svc-export-tty-');
  const file = join(dir, 'keep.txt');
  writeFileSync(file, 'keep me\n');
  const command = `node ${SVC_BIN} state export ${file}`;

  const declined = await inTerminal(command, [['Replace it with the snapshot?', 'n\r']], d.env);
  t.regex(declined, /Left .*keep\.txt as it was\./);
  t.is(readFileSync(file, 'utf8'), 'keep me\n');

  const accepted = await inTerminal(command, [['Replace it with the snapshot?', 'y\r']], d.env);
  t.regex(accepted, /Snapshot written to /);
  t.true(isSnapshot(file));
});

test('a file inside the data dir is refused as such, never offered --force (issue 51)', async (t) => {
  const key = join(d.dataDir, 'secret.key');
  const before = readFileSync(key);
  for (const args of [[], ['--force']]) {
    const refused = await d.cli(['state', 'export', key, ...args, '--json']);
    assertExit(t, refused, 1);
    const { error } = refused.json();
    t.is(error.code, 'invalid_parameter', refused.stdout);
    t.regex(error.message, /is inside the data dir/);
    t.notRegex(error.message, /--force/);
  }
  const plain = await d.cli(['state', 'export', key]);
  t.notRegex(plain.stderr, /--force/);
  t.deepEqual(readFileSync(key), before, 'the key is as it was');
});
