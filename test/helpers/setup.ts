// The preamble of an e2e test file: one daemon started in test.before() and stopped in
// test.after.always(), the operator's key and default workspace, and a JSON caller with them;
// optionally a second tenant (a workspace with an admin key of its own) for isolation checks.
import type { TestFn } from 'ava';
import { apiCaller } from './api.js';
import { startDaemon, type TestDaemon } from './daemon.js';

export interface FileDaemon {
  daemon: TestDaemon;
  /** The operator key and its default workspace: what `call` uses unless told otherwise. */
  operatorKey: string;
  defaultWs: string;
  /** The JSON caller of `apiCaller` with the operator key in the default workspace. */
  call: ReturnType<typeof apiCaller>;
  /** A fresh workspace over the control channel; returns its id. */
  newWorkspace(name: string): Promise<string>;
}

export interface TwoTenants extends FileDaemon {
  /** A second workspace ("Other tenant") and an admin key that belongs to it. */
  otherWs: string;
  otherKey: string;
}

/**
 * One daemon for the test file, started in test.before() and stopped in test.after.always():
 * the answer stands for it (every property and method is the started daemon's), so tests use
 * it as they would the daemon itself, only not at the module top level, before it started.
 */
export function sharedDaemon(
  test: TestFn,
  options: { env?: NodeJS.ProcessEnv; args?: string[] } = {},
): TestDaemon {
  let daemon: TestDaemon | undefined;
  // Serial: the file's own test.before() hooks (concurrent ones) start after it, with a daemon.
  test.serial.before(async () => {
    daemon = await startDaemon(options);
  });
  test.after.always(async () => {
    await daemon?.stop();
  });
  return new Proxy({} as TestDaemon, {
    get(_target, name) {
      if (!daemon) throw new Error('the daemon starts in test.before(): use it inside tests');
      const value: unknown = Reflect.get(daemon, name);
      return typeof value === 'function' ? value.bind(daemon) : value;
    },
  });
}

/**
 * One daemon for the test file. The fields of the answer are set once test.before() has run,
 * so tests read them, never the module top level.
 */
export function fileDaemon(
  test: TestFn,
  options: { env?: NodeJS.ProcessEnv; then?: (file: FileDaemon) => Promise<void> } = {},
): FileDaemon {
  const file = {
    call: apiCaller(() => ({ daemon: file.daemon, key: file.operatorKey, tenant: file.defaultWs })),
    newWorkspace: (name: string) => file.daemon.createWorkspace(name),
  } as FileDaemon;
  test.before(async () => {
    file.daemon = await startDaemon(options.env ? { env: options.env } : {});
    const operator = await file.daemon.operator();
    file.operatorKey = operator.key;
    file.defaultWs = operator.workspaceId;
    await options.then?.(file);
  });
  test.after.always(async () => {
    await file.daemon?.stop();
  });
  return file;
}

/** fileDaemon() and a second tenant, set up in the same test.before(). */
export function twoTenants(
  test: TestFn,
  options: { env?: NodeJS.ProcessEnv; otherKeyName?: string } = {},
): TwoTenants {
  return fileDaemon(test, {
    ...(options.env ? { env: options.env } : {}),
    async then(file) {
      const tenants = file as TwoTenants;
      tenants.otherWs = await tenants.newWorkspace('Other tenant');
      const other = await tenants.daemon.createKey('admin', {
        name: options.otherKeyName ?? 'other',
        workspace: tenants.otherWs,
      });
      tenants.otherKey = other.key;
    },
  }) as TwoTenants;
}

/** One key per name with the given scopes (in `workspace`, else the default one): name -> key. */
export async function scopedKeys<Name extends string>(
  daemon: TestDaemon,
  scopes: Record<Name, string>,
  workspace?: string,
): Promise<Record<Name, string>> {
  const keys = {} as Record<Name, string>;
  for (const name of Object.keys(scopes) as Name[]) {
    const options = workspace === undefined ? { name } : { name, workspace };
    keys[name] = (await daemon.createKey(scopes[name], options)).key;
  }
  return keys;
}
