// The control token goes only to its daemon (issue 51 row 2, issue 55 point 5). A listener on a
// port the user mistyped (--port, SVC_PORT, SVC_HOST) records every request it gets: svc sends it
// nothing (the address check refuses before any request), and its message names both addresses
// and where each came from. A data dir whose record points at a process that is not its daemon
// (it stopped, and something took the port) gets only the identity question, never the token.
import test from 'ava';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertExit, runCli } from '../helpers/daemon.js';
import { closeServer, listenLocally } from '../helpers/local-server.js';
import { sharedDaemon } from '../helpers/setup.js';
import { tempDir } from '../helpers/temp-dir.js';

const d = sharedDaemon(test);

interface Seen {
  url: string;
  headers: IncomingHttpHeaders;
}

/** A local HTTP server that records what it is sent and answers `{}`. */
async function recordingListener(t: { teardown(fn: () => Promise<void>): void }) {
  const seen: Seen[] = [];
  const server = createServer((request, response) => {
    seen.push({ url: request.url ?? '', headers: request.headers });
    response.setHeader('content-type', 'application/json');
    response.end('{}');
  });
  const origin = await listenLocally(server);
  t.teardown(() => closeServer(server));
  return { seen, origin, port: new URL(origin).port };
}

function recordedUrl(): string {
  return (JSON.parse(readFileSync(join(d.dataDir, 'daemon.json'), 'utf8')) as { url: string }).url;
}

test('--port naming another listener: nothing is sent to it; the message names both addresses', async (t) => {
  const fake = await recordingListener(t);
  const listed = await d.cli(['--port', fake.port, 'workflows', 'list']);
  assertExit(t, listed, 1);
  t.true(listed.stderr.includes(`the daemon at ${fake.origin} (host from `), listed.stderr);
  t.true(listed.stderr.includes(`port from --port)`), listed.stderr);
  t.true(listed.stderr.includes(`records its daemon at ${recordedUrl()}`), listed.stderr);
  t.true(listed.stderr.includes(join(d.dataDir, 'daemon.json')), listed.stderr);
  t.regex(listed.stderr, new RegExp(`leave out --port ${fake.port}`));
  t.regex(listed.stderr, /svc --data-dir DIR/);

  // Completion asks quietly: nothing printed, nothing sent.
  const completed = await d.cli(['--port', fake.port, '__complete', 'workflows']);
  assertExit(t, completed, 0);
  t.is(completed.stdout, '');
  t.deepEqual(fake.seen, [], 'the listener was sent nothing');

  const json = await d.cli(['--json', '--port', fake.port, 'clock', 'show']);
  assertExit(t, json, 1);
  t.is(json.json().error.code, 'daemon_address_mismatch', json.stdout);
});

test('SVC_PORT and SVC_HOST are named as sources, with the command that fixes each', async (t) => {
  const fake = await recordingListener(t);
  const byPort = await d.cli(['workflows', 'list'], { env: { SVC_PORT: fake.port } });
  assertExit(t, byPort, 1);
  t.true(byPort.stderr.includes(`port from SVC_PORT`), byPort.stderr);
  t.regex(byPort.stderr, /unset SVC_PORT/);

  const recordedPort = new URL(recordedUrl()).port;
  const byHost = await d.cli(['workflows', 'list'], {
    env: { SVC_HOST: '127.0.0.2', SVC_PORT: recordedPort },
  });
  assertExit(t, byHost, 1);
  t.true(byHost.stderr.includes(`http://127.0.0.2:${recordedPort}`), byHost.stderr);
  t.true(byHost.stderr.includes('host from SVC_HOST, port from SVC_PORT'), byHost.stderr);
  t.regex(byHost.stderr, /unset SVC_HOST\./);
  t.deepEqual(fake.seen, []);

  // Naming the recorded address itself is fine.
  const same = await d.cli(['clock', 'show'], {
    env: { SVC_HOST: '127.0.0.1', SVC_PORT: recordedPort },
  });
  assertExit(t, same, 0);
});

test('svc daemon status and stop refuse an address that is not the data dir daemon, and stop nothing', async (t) => {
  const fake = await recordingListener(t);
  const status = await d.cli(['daemon', 'status'], { env: { SVC_PORT: fake.port } });
  assertExit(t, status, 1);
  t.true(status.stderr.includes(`port from SVC_PORT`), status.stderr);
  t.true(status.stderr.includes(recordedUrl()), status.stderr);

  const stop = await d.cli(['daemon', 'stop'], { env: { SVC_PORT: fake.port } });
  assertExit(t, stop, 1);
  t.true(stop.stderr.includes(fake.origin), stop.stderr);
  t.true(stop.stderr.includes(recordedUrl()), stop.stderr);
  t.deepEqual(fake.seen, []);

  const still = await d.cli(['--json', 'daemon', 'status']);
  assertExit(t, still, 0);
  t.true(still.json<{ running: boolean }>().running, 'the data dir daemon still runs');
});

test("a record pointing at another process: it is asked to prove the daemon's id, and sent no token", async (t) => {
  const fake = await recordingListener(t);
  // The data dir of a daemon that stopped, whose port something else took since.
  const dataDir = tempDir('svc-control-token-stale-');
  const record = JSON.parse(readFileSync(join(d.dataDir, 'daemon.json'), 'utf8')) as Record<
    string,
    unknown
  >;
  writeFileSync(
    join(dataDir, 'daemon.json'),
    JSON.stringify({
      ...record,
      url: fake.origin,
      port: Number(fake.port),
      daemon_id: 'an-id-the-listener-does-not-know',
    }),
    { mode: 0o600 },
  );
  writeFileSync(join(dataDir, 'control-token'), 'stale-control-token', { mode: 0o600 });
  const listed = await runCli(['--json', 'workflows', 'list'], {
    env: { SVC_DATA_DIR: dataDir },
  });
  assertExit(t, listed, 1);
  const error = listed.json().error;
  t.is(error.code, 'daemon_identity_mismatch', listed.stdout);
  t.true(error.message.includes(`What answers at ${fake.origin} is not the daemon`), error.message);
  t.regex(error.message, /svc daemon stop && svc daemon start/);
  t.is(fake.seen.length, 1, 'one question');
  t.regex(fake.seen[0]!.url, /^\/control\/identity\?nonce=[0-9a-f]{64}$/);
  t.false(
    JSON.stringify(fake.seen).includes('stale-control-token'),
    'the control token was not sent',
  );
  t.false(
    JSON.stringify(fake.seen).includes('an-id-the-listener-does-not-know'),
    'nor the daemon id',
  );
  t.is(fake.seen[0]!.headers.authorization, undefined);
});

test('a data dir with no daemon and SVC_PORT set: the message says why the port is not used', async (t) => {
  const fake = await recordingListener(t);
  const empty = tempDir('svc-control-token-empty-');
  const listed = await runCli(['workflows', 'list'], {
    env: { SVC_DATA_DIR: empty, SVC_PORT: fake.port },
  });
  assertExit(t, listed, 1);
  t.true(listed.stderr.includes(`No svc daemon is running for data dir ${empty}`), listed.stderr);
  t.true(listed.stderr.includes(`SVC_PORT ${fake.port} names an address`), listed.stderr);
  t.regex(listed.stderr, /svc --data-dir DIR/);
  t.deepEqual(fake.seen, []);
});

test("the daemon's identity answer proves the id without showing it, and refuses a bad nonce", async (t) => {
  const { identityProof } = await import('../../shared/daemon-identity.js');
  const record = JSON.parse(readFileSync(join(d.dataDir, 'daemon.json'), 'utf8')) as {
    daemon_id: string;
  };
  t.regex(record.daemon_id, /^[A-Za-z0-9_-]{43}$/);
  const nonce = 'ab'.repeat(32);
  const answer = await d.request(`/control/identity?nonce=${nonce}`);
  t.is(answer.status, 200, answer.text);
  t.deepEqual(answer.body, { proof: identityProof(record.daemon_id, nonce) });
  t.false(answer.text.includes(record.daemon_id));
  const bad = await d.request('/control/identity?nonce=xyz');
  t.is(bad.status, 400, bad.text);
  t.is(bad.body.error.code, 'invalid_parameter');
});

test('an API key of your own may go to the address you name (your business)', async (t) => {
  const fake = await recordingListener(t);
  const listed = await d.cli([
    '--port',
    fake.port,
    '--api-key',
    'sk_test_yours',
    '--workspace',
    'ws_1',
    'workflows',
    'list',
  ]);
  t.is(fake.seen.length, 1, listed.stderr);
  t.is(fake.seen[0]!.headers.authorization, 'Bearer sk_test_yours');
});
