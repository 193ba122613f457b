// Counts an ava run's results from its default reporter's lines, for the scripts that print a
// closing `N passed, N failed` line (scripts/test.mjs, test-e2e-pg.mjs, test-times.mjs).
//
// Why not `ava --tap`: its reporter writes each failure's error as YAML through js-yaml's
// safeDump, which throws on an `undefined` anywhere in the error object, and that throw ends the
// whole ava process: in a loaded gate run (session 32) one failing e2e test took the other ~1,250
// tests down with it, and the failure's own message was lost. The default reporter formats
// errors with ava's own printer and prints one line per test: `✔ title` (passed, including a
// `[expected fail]`), `✘ ...` (a failed test, hook, unexpected pass, timeout, or a file that
// crashed: each one failure), `- [skip] title`.
import { stripVTControlCharacters } from 'node:util';

/** { passed, failed, skipped } from ava's default reporter output. */
export function avaCounts(output) {
  const text = stripVTControlCharacters(output);
  const count = (pattern) => (text.match(pattern) ?? []).length;
  return {
    passed: count(/^ {2}✔ /gm),
    failed: count(/^ {2}✘ /gm),
    skipped: count(/^ {2}- \[skip\] /gm),
  };
}
