// Installing svc asks nothing of the network but the npm registry (issue 55, point 6).
// better-sqlite3 13 ships prebuilt binaries and says `"gypfile": false`, but npm reads a locked
// package's fields from package-lock.json, which does not keep `gypfile`: seeing the package's
// binding.gyp, npm adds `node-gyp rebuild` as its install script, and node-gyp downloads Node's
// headers (unless the user's npm config names a `nodedir`, as this machine's does). svc's
// package.json denies better-sqlite3's install script (`allowScripts`), and its lock entry
// carries the `hasInstallScript: true` npm computes, so `npm install` leaves the lock as it was.
//
// The test installs svc's own better-sqlite3 entries (package.json's policy, package-lock.json's
// entries) in a project of its own, with no user npm config (no `nodedir`), a fresh npm cache,
// node-gyp's header cache empty and Node's download host pointed at a local server that records
// every request: none may come. The registry is the only network it uses.
import test from 'ava';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { closeServer, listenLocally } from '../helpers/local-server.js';
import { tempDir } from '../helpers/temp-dir.js';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');
const svcPackage = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  allowScripts: Record<string, boolean>;
};
const svcLock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, unknown>;
};

/** A project that depends on better-sqlite3 exactly as svc does (policy and lock entries). */
function projectLikeSvc(): { dir: string; lock: string } {
  const dir = tempDir('svc-install-');
  const pkg = {
    name: 'svc-install-check',
    version: '1.0.0',
    private: true,
    dependencies: { 'better-sqlite3': svcPackage.dependencies['better-sqlite3'] },
    allowScripts: { 'better-sqlite3': svcPackage.allowScripts['better-sqlite3'] },
  };
  const lock = {
    name: pkg.name,
    version: pkg.version,
    lockfileVersion: 3,
    requires: true,
    packages: {
      '': { name: pkg.name, version: pkg.version, dependencies: pkg.dependencies },
      'node_modules/better-sqlite3': svcLock.packages['node_modules/better-sqlite3'],
      'node_modules/node-addon-api': svcLock.packages['node_modules/node-addon-api'],
    },
  };
  const lockText = `${JSON.stringify(lock, null, 2)}\n`;
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  writeFileSync(join(dir, 'package-lock.json'), lockText);
  return { dir, lock: lockText };
}

test('npm ci and npm install of svc’s SQLite binding download no Node headers and leave the lock as it was', async (t) => {
  const headerRequests: string[] = [];
  const headersHost = createServer((request, response) => {
    headerRequests.push(`${request.method} ${request.url}`);
    response.statusCode = 404;
    response.end();
  });
  const mirror = await listenLocally(headersHost);
  t.teardown(() => closeServer(headersHost));

  const { dir, lock } = projectLikeSvc();
  const home = tempDir('svc-install-home-');
  const emptyUserConfig = join(home, 'npmrc');
  writeFileSync(emptyUserConfig, '');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // No user npm config: no `nodedir` to hide a header download.
    npm_config_userconfig: emptyUserConfig,
    npm_config_cache: join(home, 'npm-cache'),
    // Where node-gyp would fetch headers from, and where it keeps them: empty, and recorded.
    NODEJS_ORG_MIRROR: mirror,
    XDG_CACHE_HOME: join(home, 'cache'),
  };
  for (const key of Object.keys(env)) if (/^npm_config_nodedir$/i.test(key)) delete env[key];

  const ci = await run('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, env }).catch(
    (error: { stdout: string; stderr: string }) => error,
  );
  t.false('code' in ci, `npm ci failed:\n${ci.stderr}`);
  t.deepEqual(headerRequests, [], 'npm ci asked for Node headers');

  // The binding works: its prebuilt binary, not one compiled here.
  const { stdout } = await run(
    process.execPath,
    [
      '-e',
      "const D=require('better-sqlite3');console.log(new D(':memory:').prepare('select 1+1 as n').get().n)",
    ],
    { cwd: dir, env },
  );
  t.is(stdout.trim(), '2');

  // A second install (npm install, which rewrites the lock when it differs) changes nothing.
  await run('npm', ['install', '--no-audit', '--no-fund'], { cwd: dir, env });
  t.deepEqual(headerRequests, [], 'npm install asked for Node headers');
  t.is(readFileSync(join(dir, 'package-lock.json'), 'utf8'), lock);
});
