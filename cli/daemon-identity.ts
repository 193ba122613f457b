// Before the CLI sends a data dir's control token, the daemon at the recorded address proves it
// is that data dir's daemon (shared/daemon-identity.ts): it answers a fresh nonce with the HMAC
// keyed by the daemon id in daemon.json. A process that took the port of a daemon that has since
// stopped cannot, and is sent nothing else.
import { IDENTITY_PATH, isIdentityProof, newNonce } from '../shared/daemon-identity.js';
import type { RuntimeInfo } from '../shared/paths.js';
import { CliError } from './errors.js';

/**
 * As long as any other request of the CLI waits for its answer (shared/api-client.ts). A daemon
 * that is slow to answer is busy, not an impostor: with 10 s, a daemon on a loaded machine was
 * reported as "not the daemon that data dir records" (daemon_identity_mismatch).
 */
const IDENTITY_TIMEOUT_MS = 60_000;

export async function proveOwnDaemon(
  url: string,
  runtime: RuntimeInfo,
  dataDir: string,
  runtimeFile: string,
  timeoutMs = IDENTITY_TIMEOUT_MS,
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
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'error',
    });
    proof = response.ok ? ((await response.json()) as { proof?: unknown }).proof : undefined;
  } catch (error) {
    // Nothing listens there: the caller's "cannot reach the daemon".
    if (/ECONNREFUSED|ECONNRESET|EHOSTUNREACH/.test(String((error as Error).cause ?? error)))
      throw error;
    // No answer in time is no proof either way: the token is not sent, and the error says so.
    if ((error as Error).name === 'TimeoutError') {
      throw new CliError(
        `The daemon at ${url} (pid ${runtime.pid}, recorded in ${runtimeFile}) did not answer within ${timeoutMs / 1000} s, so the control token was not sent. It may be busy or hung: check with svc daemon status and svc daemon logs, or ${restart.charAt(0).toLowerCase()}${restart.slice(1)}`,
        1,
        'daemon_unreachable',
        { url, recorded_in: runtimeFile },
      );
    }
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
