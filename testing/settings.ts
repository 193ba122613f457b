// A sandbox's daemon settings: its agents' brain, their timeouts and the cassette folder, which a
// daemon process reads from SVC_* variables. Sandboxes share the test's process, so none reads
// the process environment: each gets the variables its options give (`brain`, `svcEnv`), and a
// test never depends on the SVC_* variables of whoever runs it.
import { resolve } from 'node:path';

export type BrainProvider = 'simulated' | 'openai' | 'replay';

export interface BrainOptions {
  /** The agents' default brain (SVC_AGENT_BRAIN); an agent's own `brain` field overrides it. */
  provider?: BrainProvider;
  /** Where cassettes are read and recorded (SVC_CASSETTE_DIR); default <data dir>/cassettes. */
  cassetteDir?: string;
  /** The replay brain's cassette, relative to the folder (SVC_AGENT_BRAIN_CASSETTE). */
  cassette?: string;
  /** replay: ask the real endpoint for what the cassette lacks, and append it. */
  recordMissing?: boolean;
  /** The openai brain's endpoint (SVC_OPENAI_BASE_URL, SVC_OPENAI_MODEL, SVC_OPENAI_API_KEY). */
  openai?: { baseUrl?: string; model?: string; apiKey?: string };
}

/** The SVC_* variables of one sandbox's daemon; `brain` wins over the same ones in `svcEnv`. */
export function settingsEnv(
  brain: BrainProvider | BrainOptions | undefined,
  svcEnv: Record<string, string> = {},
): Record<string, string> {
  for (const name of Object.keys(svcEnv)) {
    if (!name.startsWith('SVC_')) {
      throw new TypeError(
        `createSandbox: svcEnv takes the daemon's SVC_* settings (e.g. SVC_AGENT_TIMEOUT_SECONDS), not ${name}; variables for the code under test go in env.`,
      );
    }
  }
  const options = typeof brain === 'string' ? { provider: brain } : (brain ?? {});
  const set = (name: string, value: string | undefined) =>
    value === undefined ? {} : { [name]: value };
  return {
    ...svcEnv,
    ...set('SVC_AGENT_BRAIN', options.provider),
    ...set('SVC_CASSETTE_DIR', options.cassetteDir && resolve(options.cassetteDir)),
    ...set('SVC_AGENT_BRAIN_CASSETTE', options.cassette),
    ...set('SVC_AGENT_BRAIN_RECORD_MISSING', options.recordMissing?.toString()),
    ...set('SVC_OPENAI_BASE_URL', options.openai?.baseUrl),
    ...set('SVC_OPENAI_MODEL', options.openai?.model),
    ...set('SVC_OPENAI_API_KEY', options.openai?.apiKey),
  };
}
