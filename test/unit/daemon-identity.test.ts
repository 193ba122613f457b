// The CLI's identity question to a data dir's daemon (cli/daemon-identity.ts), against a real
// local HTTP server: a right proof passes, a wrong one is a mismatch, and no answer in time is
// said as such (a busy daemon is not an impostor), the control token unsent in both refusals.
import test from 'ava';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { proveOwnDaemon } from '../../cli/daemon-identity.js';
import { CliError } from '../../cli/errors.js';
import { identityProof, newDaemonId } from '../../shared/daemon-identity.js';
import type { RuntimeInfo } from '../../shared/paths.js';
import { closeServer, listenLocally } from '../helpers/local-server.js';

const FILE = '/d/daemon.json';

/** A daemon stand-in answering the identity question with `answer`; its URL and record. */
async function standIn(
  t: import('ava').ExecutionContext,
  answer: (req: IncomingMessage, res: ServerResponse, daemonId: string) => void,
) {
  const daemonId = newDaemonId();
  const server = createServer((req, res) => answer(req, res, daemonId));
  const url = await listenLocally(server);
  t.teardown(() => closeServer(server));
  const { port } = new URL(url);
  const runtime: RuntimeInfo = {
    pid: 42,
    url,
    host: '127.0.0.1',
    port: Number(port),
    environment: 'sandbox',
    version: '0',
    started_at: '',
    daemon_id: daemonId,
  };
  return { url, runtime };
}

const nonceOf = (req: IncomingMessage) =>
  new URL(req.url ?? '', 'http://x').searchParams.get('nonce') ?? '';

test('a daemon that proves its id passes', async (t) => {
  const { url, runtime } = await standIn(t, (req, res, id) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ proof: identityProof(id, nonceOf(req)) }));
  });
  await t.notThrowsAsync(proveOwnDaemon(url, runtime, '/d', FILE));
});

test('a wrong proof is daemon_identity_mismatch', async (t) => {
  const { url, runtime } = await standIn(t, (req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ proof: identityProof(newDaemonId(), nonceOf(req)) }));
  });
  const error = await t.throwsAsync(proveOwnDaemon(url, runtime, '/d', FILE), {
    instanceOf: CliError,
  });
  t.is(error.code, 'daemon_identity_mismatch');
});

test('no answer in time is daemon_unreachable naming the wait, not an identity mismatch', async (t) => {
  // Never answers: whatever the machine's speed, the short wait ends without a proof.
  const { url, runtime } = await standIn(t, () => undefined);
  const error = await t.throwsAsync(proveOwnDaemon(url, runtime, '/d', FILE, 200), {
    instanceOf: CliError,
  });
  t.is(error.code, 'daemon_unreachable');
  t.regex(error.message, /did not answer within 0\.2 s, so the control token was not sent/);
  t.regex(error.message, /svc daemon status/);
  t.like(error.details, { url, recorded_in: FILE });
});
