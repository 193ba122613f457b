// A throwaway PostgreSQL cluster for tests, from the machine's own binaries (Debian's
// `postgresql` package: .ci/run installs it when initdb is missing): initdb into a temp dir,
// a free loopback port, fsync off (a test cluster need not survive a power cut), trust auth on
// loopback and the socket in the cluster's dir, one database `svc`. As root, the cluster runs as
// the `postgres` user (PostgreSQL refuses to run as root).
//
//   node scripts/pg-cluster.mjs start       prints `<url> <dir>`: the URL to give SVC_STORE_URL
//   node scripts/pg-cluster.mjs stop DIR    stops it and removes DIR
//   node scripts/pg-cluster.mjs halt DIR    stops the server, keeps its files (a database outage)
//   node scripts/pg-cluster.mjs resume DIR  starts it again on the same port
//
// Also a module: startCluster() / cluster.stop() / cluster.restart() (the e2e runner
// scripts/test-e2e-pg.mjs, and tests that stop PostgreSQL under a running daemon).
import { execFileSync, spawnSync } from 'node:child_process';
import {
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const DATABASE = 'svc';
const SUPERUSER = 'postgres';

/** The directory of initdb/pg_ctl/psql: on PATH, else Debian's newest /usr/lib/postgresql/N/bin. */
export function postgresBin() {
  const onPath = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' });
  // The real directory: /usr/local/bin/initdb may be a link into /usr/lib/postgresql/N/bin,
  // which holds pg_ctl and psql of the same version.
  if (onPath.status === 0 && onPath.stdout.trim())
    return join(realpathSync(onPath.stdout.trim()), '..');
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base)
    ? readdirSync(base)
        .filter((name) => /^\d+$/.test(name) && existsSync(join(base, name, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0) {
    throw new Error(
      "No PostgreSQL binaries (initdb) on this machine: install Debian's postgresql package (apt-get install postgresql), or put initdb on PATH.",
    );
  }
  return join(base, versions[0], 'bin');
}

/** A port nothing listens on now (the kernel's pick). */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const asRoot = process.getuid?.() === 0;

/** Runs a PostgreSQL binary, as the postgres user when this process is root. */
function pg(bin, program, args, options = {}) {
  const file = join(bin, program);
  const [command, argv] = asRoot
    ? ['runuser', ['-u', 'postgres', '--', file, ...args]]
    : [file, args];
  return execFileSync(command, argv, { encoding: 'utf8', stdio: 'pipe', ...options });
}

function postgresUid() {
  const out = execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim();
  const gid = execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim();
  return [Number(out), Number(gid)];
}

export class Cluster {
  constructor(bin, dir, port) {
    this.bin = bin;
    this.dir = dir;
    this.port = port;
    this.url = `postgres://${SUPERUSER}@127.0.0.1:${port}/${DATABASE}`;
  }

  get dataDir() {
    return join(this.dir, 'data');
  }

  /** Starts the server and waits until it accepts connections. */
  start() {
    pg(this.bin, 'pg_ctl', [
      '-D',
      this.dataDir,
      '-l',
      join(this.dir, 'postgres.log'),
      '-w',
      '-t',
      '60',
      '-o',
      `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`,
      'start',
    ]);
  }

  /** Stops the server (fast: open sessions are ended), leaving its files. */
  halt() {
    pg(this.bin, 'pg_ctl', ['-D', this.dataDir, '-m', 'fast', '-w', 'stop']);
  }

  /** Stops the server and starts it again on the same port and files. */
  restart() {
    this.halt();
    this.start();
  }

  /** Runs SQL with psql over the cluster's socket; answers its output. */
  sql(text, database = DATABASE) {
    return pg(this.bin, 'psql', [
      '-h',
      this.dir,
      '-p',
      String(this.port),
      '-U',
      SUPERUSER,
      '-d',
      database,
      '-XAtq',
      '-v',
      'ON_ERROR_STOP=1',
      '-c',
      text,
    ]);
  }

  /** Stops the server if it runs and removes its directory. */
  stop() {
    try {
      this.halt();
    } catch {
      // Already stopped: only the files are left to remove.
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** initdb into a new temp dir, start on a free port, create the `svc` database. */
export async function startCluster() {
  const bin = postgresBin();
  const dir = mkdtempSync(join(tmpdir(), 'svc-pg-'));
  if (asRoot) {
    const [uid, gid] = postgresUid();
    chownSync(dir, uid, gid);
  }
  const cluster = new Cluster(bin, dir, await freePort());
  try {
    pg(bin, 'initdb', [
      '-D',
      cluster.dataDir,
      '-U',
      SUPERUSER,
      '--auth=trust',
      '--no-sync',
      '--encoding=UTF8',
      '--locale=C',
    ]);
    writeFileSync(join(dir, 'port'), `${cluster.port}\n`);
    cluster.start();
    cluster.sql(`CREATE DATABASE ${DATABASE}`, 'postgres');
    return cluster;
  } catch (error) {
    cluster.stop();
    throw new Error(
      `Could not start a throwaway PostgreSQL in ${dir}: ${error.stderr || error.message}`,
    );
  }
}

/** The cluster started earlier by `start` in DIR. */
export function clusterIn(dir) {
  const port = Number(readFileSync(join(dir, 'port'), 'utf8').trim());
  return new Cluster(postgresBin(), dir, port);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [command, dir] = process.argv.slice(2);
  if (command === 'start') {
    const cluster = await startCluster();
    process.stdout.write(`${cluster.url} ${cluster.dir}\n`);
  } else if (command === 'stop' && dir) {
    clusterIn(dir).stop();
  } else if (command === 'halt' && dir) {
    clusterIn(dir).halt();
  } else if (command === 'resume' && dir) {
    clusterIn(dir).start();
  } else {
    process.stderr.write(
      'usage: node scripts/pg-cluster.mjs start | stop DIR | halt DIR | resume DIR\n',
    );
    process.exit(2);
  }
}
