// Which daemon a data dir's control token may go to: the one the data dir records (daemon.json),
// at the address it records, once it has proved its daemon id (daemon-identity.ts). --host,
// --port, SVC_HOST and SVC_PORT may name that same daemon; naming another address is refused
// before anything is sent, with both addresses, where each came from and how to fix it (issue
// 51). REST calls with a key the user gives (--api-key, SVC_API_KEY) are not concerned: they go
// where the user says (CliContext.appUrl).
import { DEFAULT_HOST, type RuntimeInfo } from '../shared/paths.js';
import { CliError } from './errors.js';

export interface AddressPart {
  value: string;
  /** `--port`, `SVC_PORT`, `--host`, `SVC_HOST`. */
  source: string;
}

/** The parts of the daemon's address this command was given, if any. */
export interface RequestedAddress {
  host?: AddressPart;
  port?: AddressPart;
}

export function requestedAddress(
  options: { host?: string; port?: string },
  env: NodeJS.ProcessEnv = process.env,
): RequestedAddress {
  const part = (flag: string | undefined, flagName: string, envName: string) =>
    flag !== undefined
      ? { value: flag, source: flagName }
      : env[envName]
        ? { value: env[envName], source: envName }
        : undefined;
  const requested: RequestedAddress = {};
  const host = part(options.host, '--host', 'SVC_HOST');
  const port = part(options.port, '--port', 'SVC_PORT');
  if (host) requested.host = host;
  if (port) requested.port = port;
  return requested;
}

/** http://host:port, brackets around an IPv6 host. */
export function formatUrl(host: string, port: string | number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

const WILDCARDS = new Set(['0.0.0.0', '::']);
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

function normalHost(host: string): string {
  return host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
}

/** Whether `host` names the host the daemon recorded (a wildcard daemon listens on loopback too). */
function sameHost(host: string, runtime: RuntimeInfo): boolean {
  const given = normalHost(host);
  const recorded = [runtime.host, new URL(runtime.url).hostname].map(normalHost);
  if (recorded.includes(given)) return true;
  return recorded.some((name) => WILDCARDS.has(name)) && LOOPBACK.has(given);
}

/**
 * The URL to reach the data dir's daemon at: its recorded one, or the one --host/--port name
 * when it is the same. Throws `daemon_address_mismatch` when they name another address.
 */
export function ownDaemonUrl(
  runtime: RuntimeInfo,
  requested: RequestedAddress,
  dataDir: string,
  runtimeFile: string,
): string {
  const { host, port } = requested;
  const hostMatches = !host || sameHost(host.value, runtime);
  const portMatches = !port || Number(port.value) === runtime.port;
  if (hostMatches && portMatches)
    return host ? formatUrl(normalHost(host.value), runtime.port) : runtime.url;

  const named = formatUrl(host?.value ?? runtime.host ?? DEFAULT_HOST, port?.value ?? runtime.port);
  const from = [
    host ? `host from ${host.source}` : `host from ${runtimeFile}`,
    port ? `port from ${port.source}` : `port from ${runtimeFile}`,
  ].join(', ');
  const differing = [...(hostMatches ? [] : [host!]), ...(portMatches ? [] : [port!])];
  const drop = differing
    .map((part) =>
      part.source.startsWith('--')
        ? `leave out ${part.source} ${part.value}`
        : `unset ${part.source}`,
    )
    .join(' and ');
  throw new CliError(
    `This command names the daemon at ${named} (${from}), but data dir ${dataDir} records its daemon at ${runtime.url} (pid ${runtime.pid}, from ${runtimeFile}). svc sends a data dir's control token only to the daemon that data dir records, so nothing was sent. ` +
      `To use the data dir's daemon, ${drop}. To use the daemon at ${named}, give its data dir: svc --data-dir DIR ... (a REST call with a key of yours may go anywhere: --api-key KEY).`,
    1,
    'daemon_address_mismatch',
    {
      requested_url: named,
      requested_from: differing.map((part) => part.source),
      recorded_url: runtime.url,
      recorded_in: runtimeFile,
    },
  );
}
