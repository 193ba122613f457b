// One daemon for a test file with two tenants: the operator's default workspace, and another
// workspace with an admin key of its own, for the tenant-isolation checks every resource has.
import type { TestFn } from 'ava';
import { apiCaller } from './api.js';
import { startDaemon, type TestDaemon } from './daemon.js';

export interface TwoTenants {
  daemon: TestDaemon;
  /** The operator key and its default workspace: what `call` uses unless told otherwise. */
  operatorKey: string;
  defaultWs: string;
  /** A second workspace ("Other tenant") and an admin key that belongs to it. */
  otherWs: string;
  otherKey: string;
  /** The JSON caller of `apiCaller` with the operator key in the default workspace. */
  call: ReturnType<typeof apiCaller>;
  /** A fresh workspace over the control channel; returns its id. */
  newWorkspace(name: string): Promise<string>;
}

/**
 * Starts the daemon in test.before() and stops it in test.after.always(). The fields of the
 * answer are set once test.before() has run, so tests read them, never the module top level.
 */
export function twoTenants(
  test: TestFn,
  options: { env?: NodeJS.ProcessEnv; otherKeyName?: string } = {},
): TwoTenants {
  const tenants = {
    call: apiCaller(() => ({
      daemon: tenants.daemon,
      key: tenants.operatorKey,
      tenant: tenants.defaultWs,
    })),
    newWorkspace: (name: string) => tenants.daemon.createWorkspace(name),
  } as TwoTenants;
  test.before(async () => {
    tenants.daemon = await startDaemon(options.env ? { env: options.env } : {});
    const operator = await tenants.daemon.operator();
    tenants.operatorKey = operator.key;
    tenants.defaultWs = operator.workspaceId;
    tenants.otherWs = await tenants.newWorkspace('Other tenant');
    const other = await tenants.daemon.createKey('admin', {
      name: options.otherKeyName ?? 'other',
      workspace: tenants.otherWs,
    });
    tenants.otherKey = other.key;
  });
  test.after.always(async () => {
    await tenants.daemon?.stop();
  });
  return tenants;
}
