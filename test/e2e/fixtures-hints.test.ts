// Issue 41, fixtures as a new user meets them: apply says which workspaces the file declared and
// how to act in them (the CLI otherwise acts in the operator's default one), the --env-out file
// starts with the daemon's API address, and a key the schema does not know is refused with the
// keys allowed at that place.
import test from 'ava';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertExit } from '../helpers/daemon.js';
import { sharedDaemon } from '../helpers/setup.js';
import { tempDir } from '../helpers/temp-dir.js';

const d = sharedDaemon(test);
const dir = tempDir('svc-fixture-hints-');

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

test('apply names each workspace and how to act in it; --env-out starts with SVC_BASE_URL', async (t) => {
  const fixture = file(
    'beta.yaml',
    'version: 1\nworkspaces:\n  beta: { name: Beta, tier: free }\nagents:\n  a: { workspace: "${workspaces.beta.id}", name: A, ontology: retail-v1 }\n',
  );
  const envFile = join(dir, 'beta.env');
  const applied = await d.cli(['fixtures', 'apply', fixture, '--env-out', envFile]);
  assertExit(t, applied, 0);
  const ws = /^create +workspaces\.beta +(ws_\w+)/m.exec(applied.stdout)?.[1];
  t.truthy(ws, applied.stdout);
  t.true(
    applied.stderr.includes(
      `Workspace beta is ${ws}: act in it with svc --workspace ${ws} ... or export SVC_WORKSPACE=${ws}`,
    ),
    applied.stderr,
  );
  const lines = readFileSync(envFile, 'utf8').split('\n');
  t.is(lines[0], `SVC_BASE_URL=${d.url}/v1`);
  t.true(lines.includes(`SVC_WORKSPACE_BETA_ID=${ws}`));
  // The hint works as printed: the agent is found in that workspace.
  const agents = await d.cli(['agents', 'list', '--workspace', ws!, '--json']);
  t.is(agents.json().data.length, 1);
});

test('settings.max_attempts is refused with the keys settings takes', async (t) => {
  const fixture = file(
    'retries.yaml',
    'version: 1\nworkflows:\n  w:\n    name: W\n    settings: { max_attempts: 3 }\n    steps: [{ id: s, name: S, type: wait, config: { duration_seconds: 1 } }]\n',
  );
  const refused = await d.cli(['fixtures', 'apply', fixture]);
  assertExit(t, refused, 1);
  t.regex(
    refused.stderr,
    /workflows\.w\.settings: Unrecognized key: "max_attempts"\. Allowed here: .*retry_policy.*timeout_seconds/,
  );
});
