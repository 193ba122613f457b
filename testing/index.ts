// svc/testing: a fresh svc sandbox per test (docs/testing.md).
import { Sandbox, type SandboxOptions } from './sandbox.js';

export { Sandbox, type FaultRule, type SandboxOptions } from './sandbox.js';
export type { Answer, NextOptions, Received, Receiver } from './receiver.js';
export type { BrainOptions, BrainProvider } from './settings.js';
export { createClient, type SvcClient, type SvcClientOptions } from '../client/index.js';
export { verifySignature } from '../shared/signature.js';
export { SvcError } from './svc-error.js';

/**
 * A sandbox of its own: a daemon in this process on a free loopback port, with its own data
 * dir, key and workspace. `await using sb = await createSandbox()` stops it at the end of the
 * block; otherwise call sb.stop().
 */
export function createSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  return Sandbox.start(options);
}
