// Triggering a signed hook from the CLI (issue 41, "Errors and hints that speak CLI"):
// `svc workflows trigger` POSTs to the hook's URL signed with the trigger's stored secret (the
// daemon signs; the secret never leaves it), prints the run id or follows it with --wait; and
// `svc workflows trigger-url` suggests that command and a curl that works as printed.
import test from 'ava';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { signatureHeader } from '../../shared/signature.js';
import { assertExit, type CliResult } from '../helpers/daemon.js';
import { sharedDaemon } from '../helpers/setup.js';
import { tempDir } from '../helpers/temp-dir.js';
import { apiFor, createWorkflow, getExecution, type Api } from '../helpers/workflows.js';

const d = sharedDaemon(test);
const SECRET = 'whsec_cli_trigger_secret_0815';

function svc(ws: string, ...args: string[]): Promise<CliResult> {
  return d.cli([...args, '--workspace', ws]);
}

/** A workflow started by hook `path` (signed with SECRET unless told), one instant step. */
async function hookWorkflow(
  name: string,
  options: { secret?: string | null; status?: string } = {},
): Promise<{ ws: string; api: Api; id: string }> {
  const ws = await d.createWorkspace(name);
  const api = await apiFor(d, ws);
  const secret = options.secret === undefined ? SECRET : options.secret;
  const id = await createWorkflow(api, {
    name,
    status: options.status ?? 'active',
    trigger: { type: 'webhook', config: { path: 'orders', ...(secret ? { secret } : {}) } },
    steps: [{ id: 'done', name: 'Done', type: 'wait', config: { duration_seconds: 0 } }],
  });
  return { ws, api, id };
}

test('trigger signs with the stored secret, prints the run id, and the run has the body', async (t) => {
  const { ws, api, id } = await hookWorkflow('trigger-signed');
  const result = await svc(ws, 'workflows', 'trigger', id, '--data', '{"order": "A-1"}', '--json');
  assertExit(t, result, 0);
  const started = result.json<{ execution_id: string }>();
  t.deepEqual(started, {
    execution_id: started.execution_id,
    workflow_id: id,
    path: 'orders',
    signed: true,
  });
  t.regex(started.execution_id, /^wex_/);
  t.is(result.stderr, `Follow it with: svc workflows watch ${started.execution_id}\n`);
  const run = await getExecution(api, id, started.execution_id);
  t.deepEqual(run.input, { order: 'A-1' });
  t.is(run.trigger.type, 'webhook');

  const human = await svc(ws, 'workflows', 'trigger', id);
  assertExit(t, human, 0);
  t.regex(human.stdout, /^Started run wex_\w+ by a signed POST to hook orders\n$/);
});

test('the same body triggered twice at once starts two runs (signed anew in the next second)', async (t) => {
  const { ws, id } = await hookWorkflow('trigger-twice');
  const [first, second] = await Promise.all(
    [1, 2].map(() => svc(ws, 'workflows', 'trigger', id, '--data', '{"same": true}', '--json')),
  );
  assertExit(t, first!, 0);
  assertExit(t, second!, 0);
  t.not(first!.json().execution_id, second!.json().execution_id);
});

test('a body whose signature is taken in this second and the next is refused as a copy, exit 1', async (t) => {
  const { ws, id } = await hookWorkflow('trigger-copies');
  const body = '{"same": "always"}';
  // Every second of the next 90 already started a run with this body (sent at once: a loaded
  // machine must not outlast the window): the CLI's signature, and its one new signature a second
  // later, are copies of two of them.
  const now = Math.floor(Date.now() / 1000);
  const statuses = await Promise.all(
    Array.from({ length: 90 }, async (_, offset) => {
      const accepted = await fetch(`${d.url}/v1/hooks/${ws}/orders`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-svc-signature': signatureHeader(SECRET, body, now + offset),
        },
        body,
      });
      return accepted.status;
    }),
  );
  t.deepEqual(new Set(statuses), new Set([202]));
  const result = await svc(ws, 'workflows', 'trigger', id, '--data', body);
  t.log(`the CLI ended ${Math.floor(Date.now() / 1000) - now} s into the 90 s window`);
  assertExit(t, result, 1);
  t.regex(
    result.stderr,
    /^Error: This signed request was already accepted at .* and started run wex_\w+/,
  );
});

test('trigger --wait follows the run to its end, with the body from a file', async (t) => {
  const { ws, api, id } = await hookWorkflow('trigger-wait');
  const file = join(tempDir('svc-trigger-'), 'alert.json');
  writeFileSync(file, '{"alert": "disk full"}\n');
  const result = await svc(
    ws,
    'workflows',
    'trigger',
    id,
    '--data',
    `@${file}`,
    '--wait',
    '--json',
  );
  assertExit(t, result, 0);
  const [, runId] = /^run (wex_\w+) is started by a signed POST to hook orders$/m.exec(
    result.stderr,
  )!;
  t.truthy(runId, result.stderr);
  t.regex(result.stderr, new RegExp(`^Run ${runId} completed in `, 'm'));
  const run = await getExecution(api, id, runId!);
  t.is(run.status, 'completed');
  t.deepEqual(run.input, { alert: 'disk full' });
});

test('an unsigned hook is triggered unsigned; refusals speak CLI', async (t) => {
  const { ws, id } = await hookWorkflow('trigger-unsigned', { secret: null });
  const plain = await svc(ws, 'workflows', 'trigger', id, '--json');
  assertExit(t, plain, 0);
  t.like(plain.json(), { path: 'orders', signed: false });

  const badData = await svc(ws, 'workflows', 'trigger', id, '--data', 'not json');
  assertExit(t, badData, 2);
  t.is(
    badData.stderr,
    `Error: --data takes JSON, e.g. --data '{"alert": "disk full"}' or --data @alert.json.\n`,
  );

  const paused = await hookWorkflow('trigger-draft', { status: 'draft' });
  const draft = await svc(paused.ws, 'workflows', 'trigger', paused.id);
  assertExit(t, draft, 1);
  t.regex(
    draft.stderr,
    new RegExp(`is not active.*Activate it with: svc workflows activate ${paused.id}`),
  );

  const manualWs = await d.createWorkspace('trigger-manual');
  const manual = await createWorkflow(await apiFor(d, manualWs), {
    name: 'Manual',
    steps: [{ id: 'done', name: 'Done', type: 'wait', config: { duration_seconds: 0 } }],
  });
  const notHook = await svc(manualWs, 'workflows', 'trigger', manual);
  assertExit(t, notHook, 1);
  t.is(
    notHook.stderr,
    `Error: Workflow ${manual} has a manual trigger, not a webhook one. Set trigger {type: webhook, config: {path: NAME}} with: svc workflows update ${manual} -f FILE\n`,
  );
});

test('trigger-url of a signed hook suggests svc workflows trigger and a signed curl that works as printed', async (t) => {
  const { ws, api, id } = await hookWorkflow('trigger-url-signed');
  const result = await svc(ws, 'workflows', 'trigger-url', id);
  assertExit(t, result, 0);
  const url = `${d.url}/v1/hooks/${ws}/orders`;
  t.is(result.stdout, `${url}\n`);
  const [suggested, curlLine, ...rest] = result.stderr.split('\n');
  t.is(
    suggested,
    `Start a run with: svc workflows trigger ${id} --data '{}' (signs with the trigger secret)`,
  );
  const curl = /^or: (curl .*) {2}\(signed now: works once, within 5 minutes\)$/.exec(
    curlLine!,
  )?.[1];
  t.truthy(curl, curlLine);
  t.regex(
    curl!,
    new RegExp(
      `^curl -X POST -H 'content-type: application/json' -H 'X-Svc-Signature: t=\\d+,v1=[0-9a-f]{64}' -d '\\{\\}' ${url.replaceAll('.', '\\.')}$`,
    ),
  );
  t.deepEqual(rest, ['']);
  t.false(result.stderr.includes(SECRET));

  // Run as printed, through a shell: the hook accepts it and starts a run.
  const { stdout } = await promisify(execFile)('sh', ['-c', `${curl} --silent`]);
  const executionId = (JSON.parse(stdout) as { data: { execution_id: string } }).data.execution_id;
  t.is((await getExecution(api, id, executionId)).trigger.type, 'webhook');

  const json = await svc(ws, 'workflows', 'trigger-url', id, '--json');
  assertExit(t, json, 0);
  t.like(json.json(), {
    workflow_id: id,
    url,
    path: 'orders',
    signed: true,
    status: 'active',
    trigger: `svc workflows trigger ${id} --data '{}'`,
  });
});

test('trigger-url of an unsigned hook suggests the command and a plain curl', async (t) => {
  const { ws, id } = await hookWorkflow('trigger-url-unsigned', { secret: null });
  const result = await svc(ws, 'workflows', 'trigger-url', id);
  assertExit(t, result, 0);
  const url = `${d.url}/v1/hooks/${ws}/orders`;
  t.is(
    result.stderr,
    [
      `Start a run with: svc workflows trigger ${id} --data '{}'`,
      `or: curl -X POST -H 'content-type: application/json' -d '{}' ${url}`,
      '',
    ].join('\n'),
  );
});
