// Unit-test helper: the whole daemon built in-process on a fresh temp data dir (no listening,
// use app.inject), with a way to mint keys through the real key service, and clean-up.
import { rmSync } from 'node:fs';
import type { Scope } from '../../shared/scopes.js';
import { buildApp, type AppOptions, type SvcApp } from '../../daemon/app/app.js';
import type { KeyRecord } from '../../daemon/keys/key.service.js';
import { tempDir } from './temp-dir.js';

export const CONTROL_TOKEN = 'test';

export interface TestApp extends SvcApp {
  dataDir: string;
  /** The default (enterprise) workspace created on first start. */
  defaultWorkspaceId: string;
  /** Mints an API key through the real key service; returns the key shown once and its record. */
  createKey(
    scopes: Scope[],
    options?: { workspaceId?: string; expiresInMs?: number; name?: string },
  ): { key: string; record: KeyRecord };
  /** Closes the app and removes the temp data dir. Safe to call twice. */
  cleanup(): Promise<void>;
}

export { tempDir };

/**
 * Builds the app. `beforeReady` may add routes or hooks to the Fastify instance before it is
 * made ready (e.g. a route that throws, to see the 500 body).
 */
export async function buildTestApp(
  options: Partial<AppOptions> & {
    beforeReady?: (app: SvcApp['app']) => void;
  } = {},
): Promise<TestApp> {
  const { beforeReady, ...appOptions } = options;
  const dataDir = appOptions.dataDir ?? tempDir();
  const svc = await buildApp({
    environment: 'sandbox',
    controlToken: CONTROL_TOKEN,
    ...appOptions,
    dataDir,
  });
  beforeReady?.(svc.app);
  await svc.app.ready();
  let cleaned = false;
  return {
    ...svc,
    dataDir,
    defaultWorkspaceId: svc.services.workspaces.defaultWorkspaceId,
    createKey(scopes, { workspaceId, expiresInMs, name = 'unit test key' } = {}) {
      return svc.services.keys.create({ name, scopes, workspaceId, expiresInMs });
    },
    async cleanup() {
      if (cleaned) return;
      cleaned = true;
      await svc.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
