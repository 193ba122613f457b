// The options every svc command takes, as data: main.ts adds them to the commander program and
// `svc completion` offers them after any command.
import type { OptionSpec } from './command.js';

export const GLOBAL_OPTIONS: readonly OptionSpec[] = [
  { flags: '--json', description: 'print one JSON document on stdout' },
  {
    flags: '--data-dir <dir>',
    description: 'daemon data dir (env SVC_DATA_DIR; default $XDG_DATA_HOME/svc)',
  },
  {
    flags: '--port <port>',
    description: 'daemon port (env SVC_PORT; default: the running daemon, else 7717)',
  },
  { flags: '--host <host>', description: 'daemon host (env SVC_HOST; default 127.0.0.1)' },
  {
    flags: '--api-key <key>',
    description: 'call the API with this key (env SVC_API_KEY) instead of the operator credential',
  },
  {
    flags: '--workspace <id>',
    description:
      'workspace (X-Tenant-ID) to act in (env SVC_WORKSPACE; default: the default workspace)',
  },
];
