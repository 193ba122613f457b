// The daemons a team-mode test file starts on one PostgreSQL sandbox, stopped once its tests are
// done, whatever happened (a file apart from postgres.ts, which the bench loads: ava's `test`
// cannot be imported outside a test run).
import test from 'ava';
import type { TestDaemon } from './daemon.js';

/** An array to push the file's daemons on (twoDaemonsOn does); they stop after its tests. */
export function daemonsStoppedAfterFile(): TestDaemon[] {
  const started: TestDaemon[] = [];
  test.after.always(async () => {
    await Promise.all(started.map((daemon) => daemon.stop().catch(() => undefined)));
  });
  return started;
}
