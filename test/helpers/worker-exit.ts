// Loaded by ava in each test file's worker before the file (package.json, ava.require). Once ava
// is done with the file (its tests and after-hooks ran, its results were sent), the worker
// exits. Without this, a handle left open (a CLI call's hang guard, a keep-alive socket to a
// daemon, a subscription) kept a finished worker alive, holding one of ava's two places, until
// ava's 5-minute inactivity timeout, which then ends every worker still running, tests included.
// Whatever the helpers started is still ended on the way out (reaper.ts, on 'exit').
import { registerCompletionHandler } from 'ava';

registerCompletionHandler(() => {
  process.exit();
});
