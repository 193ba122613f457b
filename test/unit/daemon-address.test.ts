// Which address may receive a data dir's control token (cli/daemon-address.ts), and the proof a
// daemon gives of its id (shared/daemon-identity.ts), as plain functions.
import test from 'ava';
import { ownDaemonUrl, requestedAddress } from '../../cli/daemon-address.js';
import { CliError } from '../../cli/errors.js';
import {
  identityProof,
  isIdentityProof,
  newDaemonId,
  newNonce,
} from '../../shared/daemon-identity.js';
import { isIdOf } from '../../shared/ids.js';
import type { RuntimeInfo } from '../../shared/paths.js';

function runtime(host: string, port: number): RuntimeInfo {
  const hostPart = host.includes(':') ? `[${host}]` : host;
  return {
    pid: 42,
    url: `http://${hostPart}:${port}`,
    host,
    port,
    environment: 'sandbox',
    version: '0',
    started_at: '',
    daemon_id: 'id',
  };
}

const FILE = '/d/daemon.json';

function refusal(fn: () => unknown): CliError {
  const error = (() => {
    try {
      fn();
    } catch (caught) {
      return caught;
    }
    return undefined;
  })();
  if (!(error instanceof CliError)) throw new Error('expected a CliError');
  return error;
}

test('flags win over the environment; no flag and no variable names nothing', (t) => {
  t.deepEqual(requestedAddress({ port: '1' }, { SVC_PORT: '2', SVC_HOST: 'h' }), {
    port: { value: '1', source: '--port' },
    host: { value: 'h', source: 'SVC_HOST' },
  });
  t.deepEqual(requestedAddress({}, {}), {});
  t.deepEqual(requestedAddress({}, { SVC_PORT: '' }), {});
});

test('the recorded address, named or not, is the one used', (t) => {
  const recorded = runtime('127.0.0.1', 7717);
  t.is(ownDaemonUrl(recorded, {}, '/d', FILE), 'http://127.0.0.1:7717');
  t.is(
    ownDaemonUrl(recorded, { port: { value: '7717', source: 'SVC_PORT' } }, '/d', FILE),
    'http://127.0.0.1:7717',
  );
  t.is(
    ownDaemonUrl(runtime('::1', 9), { host: { value: '[::1]', source: '--host' } }, '/d', FILE),
    'http://[::1]:9',
  );
  // A daemon listening on every address answers on loopback too.
  t.is(
    ownDaemonUrl(
      runtime('0.0.0.0', 9),
      { host: { value: 'localhost', source: '--host' } },
      '/d',
      FILE,
    ),
    'http://localhost:9',
  );
});

test('another port or host is refused, naming both addresses, their sources and the fix', (t) => {
  const recorded = runtime('127.0.0.1', 7717);
  const byPort = refusal(() =>
    ownDaemonUrl(recorded, { port: { value: '18499', source: '--port' } }, '/d', FILE),
  );
  t.is(byPort.code, 'daemon_address_mismatch');
  t.regex(
    byPort.message,
    /names the daemon at http:\/\/127\.0\.0\.1:18499 \(host from \/d\/daemon\.json, port from --port\)/,
  );
  t.regex(
    byPort.message,
    /records its daemon at http:\/\/127\.0\.0\.1:7717 \(pid 42, from \/d\/daemon\.json\)/,
  );
  t.regex(byPort.message, /leave out --port 18499/);

  const byBoth = refusal(() =>
    ownDaemonUrl(
      recorded,
      {
        host: { value: 'localhost', source: 'SVC_HOST' },
        port: { value: '1', source: 'SVC_PORT' },
      },
      '/d',
      FILE,
    ),
  );
  t.regex(byBoth.message, /http:\/\/localhost:1 \(host from SVC_HOST, port from SVC_PORT\)/);
  t.regex(byBoth.message, /unset SVC_HOST and unset SVC_PORT/);
  t.deepEqual(byBoth.details.requested_from, ['SVC_HOST', 'SVC_PORT']);
});

test('an identity proof answers one nonce for one daemon id, and says nothing of the id', (t) => {
  const id = newDaemonId();
  const nonce = newNonce();
  const proof = identityProof(id, nonce);
  t.true(isIdentityProof(id, nonce, proof));
  t.false(isIdentityProof(id, newNonce(), proof), 'another nonce');
  t.false(isIdentityProof(newDaemonId(), nonce, proof), 'another daemon');
  t.false(isIdentityProof(id, nonce, proof.slice(1)), 'a shorter answer');
  t.false(isIdentityProof(id, nonce, undefined));
  t.false(proof.includes(id));
});

test('the id grammar: prefix, then 1 to 64 base62 characters', (t) => {
  t.true(isIdOf('workflow', 'wfl_0VcJm3qO2QzkCN0gnrMx'));
  for (const bad of ['wfl_', 'wfl_$(x)', 'wfl_a b', 'agt_abc', `wfl_${'a'.repeat(65)}`, 'wfl_é', 7])
    t.false(isIdOf('workflow', bad), String(bad));
});
