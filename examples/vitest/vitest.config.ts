import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The first test of a file also loads svc (a whole daemon): on a busy CI machine that can
    // pass vitest's default 5 s.
    testTimeout: 30_000,
    // svc installed from a checkout (file:../..) resolves outside node_modules; it is plain
    // JavaScript already, so Node loads it as it is, as it would from the registry.
    server: { deps: { external: [/\/dist\/(testing|client|shared|daemon|cli)\//] } },
  },
});
