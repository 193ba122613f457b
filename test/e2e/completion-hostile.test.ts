// Ids are data, never code (issue 51 row 1). A fake daemon on a port (a small local HTTP server
// answering what the CLI asks) lists workflow ids that a shell would run or expand:
// `wfl_$(touch marker)`, backticks, `${HOME}`, braces, `~`, a `;`, a newline, a glob. For each
// shell on the machine (bash, zsh, fish; a missing one is skipped, its reason in the title), the
// completion svc prints offers only the id of svc's grammar, and no marker file is ever made.
// Then the scripts alone: a stand-in `svc` prints the hostile words itself, and each script
// passes them on as data (bash quotes each with %q; zsh hands each to compadd after --; fish
// lists them as text), still making no marker.
import test from 'ava';
import { spawnSync } from 'node:child_process';
import { chmodSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { runCli, SVC_BIN } from '../helpers/daemon.js';
import { svcEnv } from '../helpers/env.js';
import { completionOffers, installed, SHELLS, type Shell } from '../helpers/completion-shells.js';
import { closeServer, listenLocally } from '../helpers/local-server.js';
import { tempDir } from '../helpers/temp-dir.js';

const GOOD_WORKFLOW = 'wfl_Good1';
const GOOD_RUN = 'wex_Good2';
// No spaces (the scripts split svc's answer into words on white space, and ids have none), so
// each reaches the shell as one word: `>marker` makes a file as `touch marker` would.
const HOSTILE = [
  'wfl_$(>marker1)',
  'wfl_`>marker2`',
  'wfl_${HOME}',
  'wfl_{a,b}',
  '~',
  'wfl_~',
  '$(>marker3)',
  'wfl_x;>marker4',
  'wfl_y\n>marker5',
  'wfl_*',
  '`>marker6`',
  'wfl_$(touch${IFS}marker7)',
];

/** The folder the shells run in (markers would land here), also their HOME. */
const home = tempDir('svc-completion-hostile-');
const dataDir = tempDir('svc-completion-hostile-data-');

/** `svc` on PATH: the built CLI, or a stand-in that prints the hostile words for __complete. */
function shim(name: string, body: string): string {
  const dir = join(home, name);
  spawnSync('mkdir', ['-p', dir]);
  writeFileSync(join(dir, 'svc'), `#!/bin/sh\n${body}\n`);
  chmodSync(join(dir, 'svc'), 0o755);
  return dir;
}
const realSvc = shim('real', `exec "${process.execPath}" "${SVC_BIN}" "$@"`);
const hostileList = join(home, 'hostile.txt');
writeFileSync(hostileList, [GOOD_WORKFLOW, ...HOSTILE].join('\n') + '\n');
const fakeSvc = shim(
  'stand-in',
  `if [ "$1" = __complete ] || [ "$3" = __complete ]; then cat "${hostileList}"; else exec "${process.execPath}" "${SVC_BIN}" "$@"; fi`,
);

let fakeDaemon: { origin: string; port: string; paths: string[] } | undefined;
const server = createServer((request, response) => {
  const path = (request.url ?? '').split('?')[0]!;
  fakeDaemon?.paths.push(path);
  response.setHeader('content-type', 'application/json');
  const items = path.endsWith('/executions')
    ? [GOOD_RUN, ...HOSTILE].map((id) => ({ execution_id: id }))
    : [GOOD_WORKFLOW, ...HOSTILE].map((id) => ({ id }));
  response.end(JSON.stringify({ data: items }));
});
test.before(async () => {
  const origin = await listenLocally(server);
  fakeDaemon = { origin, port: new URL(origin).port, paths: [] };
});
test.after.always(() => closeServer(server));

/** The fake daemon, reached with a key of the user's own (the control token goes to no port). */
function env(path: string): NodeJS.ProcessEnv {
  return svcEnv({
    HOME: home,
    PATH: `${path}:${process.env.PATH}`,
    SVC_DATA_DIR: dataDir,
    SVC_PORT: fakeDaemon!.port,
    SVC_API_KEY: 'sk_test_completion',
    SVC_WORKSPACE: 'ws_1',
    // A TAB's 2 s wait for ids is a promise to the user at the keyboard, not a bound this test
    // can hold on a loaded machine (at load 55 the bash case offered nothing): the ids must
    // come, however long the machine takes, for their filtering to be tested.
    SVC_COMPLETE_TIMEOUT_MS: '60000',
  });
}

/** What the shell's completion offers for `words`, with the `svc` found in `path`. */
function offered(shell: Shell, words: string[], path: string): Promise<string[]> {
  return completionOffers(shell, words, { cwd: home, env: env(path) });
}

function markers(): string[] {
  return readdirSync(home).filter((name) => name.startsWith('marker'));
}

test.serial('svc __complete prints only ids of the grammar for the kind asked', async (t) => {
  const workflows = await runCli(['__complete', 'workflows'], { env: env(realSvc) });
  t.is(workflows.stdout, `${GOOD_WORKFLOW}\n`, workflows.stderr);
  const runs = await runCli(['__complete', 'runs', GOOD_WORKFLOW], { env: env(realSvc) });
  t.is(runs.stdout, `${GOOD_RUN}\n`, runs.stderr);
  // A workflow "id" that is not one is not even asked about.
  const before = fakeDaemon!.paths.length;
  const hostileRuns = await runCli(['__complete', 'runs', 'wfl_$(>marker8)'], {
    env: env(realSvc),
  });
  t.is(hostileRuns.stdout, '');
  t.is(fakeDaemon!.paths.length, before);
  t.deepEqual(markers(), []);
});

for (const shell of SHELLS) {
  const has = installed(shell);
  const define = has ? test.serial : test.serial.skip;
  const reason = has ? '' : ` (skipped: ${shell} is not installed on this machine)`;

  define(
    `${shell}: a fake daemon's hostile ids are not offered and never run${reason}`,
    async (t) => {
      const words = await offered(shell, ['svc', 'workflows', 'get', ''], realSvc);
      t.deepEqual(words, [GOOD_WORKFLOW]);
      if (shell === 'bash') {
        const runs = await offered(
          shell,
          ['svc', 'workflows', 'execution', GOOD_WORKFLOW, ''],
          realSvc,
        );
        t.deepEqual(runs, [GOOD_RUN]);
      }
      t.deepEqual(markers(), []);
    },
  );

  define(
    `${shell}: the script passes words on as data, quoted, whatever svc prints${reason}`,
    async (t) => {
      const words = await offered(shell, ['svc', 'workflows', 'get', ''], fakeSvc);
      t.deepEqual(markers(), [], 'no word was run');
      t.true(words.includes(GOOD_WORKFLOW), words.join(' | '));
      if (shell === 'bash') {
        // Each word as the command line gets it: quoted, so that it reads back as itself.
        t.true(words.includes('wfl_\\$\\(\\>marker1\\)'), words.join(' | '));
        t.true(words.includes('wfl_\\{a\\,b\\}'), words.join(' | '));
        t.true(words.includes('\\~'), words.join(' | '));
        t.false(words.includes('wfl_a') || words.includes('wfl_b'), 'braces were not expanded');
      } else {
        // zsh's compadd and fish quote what they insert: each word reaches them unchanged.
        for (const word of ['wfl_$(>marker1)', 'wfl_`>marker2`', 'wfl_${HOME}', '~'])
          t.true(words.includes(word), `${JSON.stringify(word)} in ${words.join(' | ')}`);
      }
      for (const word of words) t.false(word.includes(home), `HOME expanded: ${word}`);
      t.deepEqual(markers(), []);
    },
  );
}

test.serial('with a word typed, only the ids that start with it are offered (bash)', async (t) => {
  t.deepEqual(await offered('bash', ['svc', 'workflows', 'get', 'wfl_'], realSvc), [GOOD_WORKFLOW]);
  t.deepEqual(await offered('bash', ['svc', 'workflows', 'get', 'wfl_G'], realSvc), [
    GOOD_WORKFLOW,
  ]);
  t.deepEqual(await offered('bash', ['svc', 'workflows', 'get', 'wfl_$'], fakeSvc), [
    'wfl_\\$\\(\\>marker1\\)',
    'wfl_\\$\\{HOME\\}',
    'wfl_\\$\\(touch\\$\\{IFS\\}marker7\\)',
  ]);
  t.deepEqual(markers(), []);
});
