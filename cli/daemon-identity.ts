// Before the CLI sends a data dir's control token, the daemon at the recorded address proves it
// is that data dir's daemon (shared/daemon-identity.ts): it answers a fresh nonce with the HMAC
// keyed by the daemon id in daemon.json. A process that took the port of a daemon that has since
// stopped cannot, and is sent nothing else.
import { IDENTITY_PATH, isIdentityProof, newNonce } from '../shared/daemon-identity.js';
import type { RuntimeInfo } from '../shared/paths.js';
import { CliError } from './errors.js';

const IDENTITY_TIMEOUT_MS = 10_000;

export async function proveOwnDaemon(
  url: string,
  runtime: RuntimeInfo,
  dataDir: string,
  runtimeFile: string,
): Promise<void> {
  const restart = 'Restart it with: svc daemon stop && svc daemon start';
  if (!runtime.daemon_id) {
    throw new CliError(
      `The daemon recorded in ${runtimeFile} (pid ${runtime.pid}, ${runtime.url}) records no daemon id (started by an older svc), so it cannot prove it is this data dir's daemon and the control token was not sent. ${restart}`,
      1,
      'daemon_identity_unproven',
    );
  }
  const nonce = newNonce();
  let proof: unknown;
  try {
    const response = await fetch(`${url}${IDENTITY_PATH}?nonce=${nonce}`, {
      signal: AbortSignal.timeout(IDENTITY_TIMEOUT_MS),
      redirect: 'error',
    });
    proof = response.ok ? ((await response.json()) as { proof?: unknown }).proof : undefined;
  } catch (error) {
    // Nothing listens there: the caller's "cannot reach the daemon".
    if (/ECONNREFUSED|ECONNRESET|EHOSTUNREACH/.test(String((error as Error).cause ?? error)))
      throw error;
    proof = undefined;
  }
  if (!isIdentityProof(runtime.daemon_id, nonce, proof)) {
    throw new CliError(
      `What answers at ${url} is not the daemon that data dir ${dataDir} records in ${runtimeFile} (pid ${runtime.pid}): it could not prove that daemon's id, so the control token was not sent. The daemon may have stopped and another program taken its port. ${restart}`,
      1,
      'daemon_identity_mismatch',
      { url, recorded_in: runtimeFile },
    );
  }
}
