// A refused write changes nothing, the clock included (issue 51, row 6). On a full disk
// `svc clock advance` answers 507 and the clock stays where it was (it used to move in memory,
// unstored, and the wake-ups it passed were left due with nothing to fire them until the next
// move); wake-ups that fall due on a ticking clock while the disk is full run once space is
// freed, with no other clock move (`svc settle` waits for them and answers).
//
// How the disk fills: as in full-disk.test.ts, the daemon's RLIMIT_FSIZE is lowered with
// `prlimit --pid`, here to one byte: every write of the store and of the log is refused by the
// kernel (EFBIG: SQLITE_IOERR_WRITE), as on a disk with no block left, whatever SQLite would reuse
// of its WAL. Raising the limit again is "space was freed" for the running process.
import test from 'ava';
import { execFileSync } from 'node:child_process';
import { control } from '../helpers/api.js';
import { assertExit, startDaemon } from '../helpers/daemon.js';
import { apiFor, createWorkflow, getExecution, waitForExecution } from '../helpers/workflows.js';

/** The runs parked on a wait, as in the report. */
const RUNS = 20;
/** The wait step's duration: their wake-ups are due 10 minutes on. */
const WAIT_S = 600;

function fileSizeLimit(pid: number, limit: number | 'unlimited'): void {
  // The soft limit only ("N:"): the hard one stays, so the limit can be raised again.
  execFileSync('prlimit', ['--pid', String(pid), `--fsize=${limit}:`], { stdio: 'pipe' });
}

test('a full disk: a clock move is refused whole, and wake-ups due meanwhile run once space is freed', async (t) => {
  const d = await startDaemon();
  t.teardown(async () => {
    try {
      fileSizeLimit(d.pid, 'unlimited');
    } catch {
      // The daemon has already stopped.
    }
    await d.stop();
  });
  const { workspaceId } = await d.operator();
  const api = await apiFor(d, workspaceId);
  const flow = await createWorkflow(api, {
    name: 'Wait ten minutes',
    steps: [
      {
        id: 'pause',
        name: 'Pause',
        type: 'wait',
        config: { duration_seconds: WAIT_S },
        next_step_id: 'check',
      },
      {
        id: 'check',
        name: 'Check',
        type: 'condition',
        config: { condition: 'true', if_true: null, if_false: null },
      },
    ],
  });
  /** Starts RUNS runs and waits until each is parked on its wait; their wake-up times. */
  const parkRuns = async () => {
    const ids: string[] = [];
    for (let n = 0; n < RUNS; n += 1) {
      const started = await api('POST', `/workflows/${flow}/execute`, { input: { n } });
      t.is(started.status, 202, JSON.stringify(started.body));
      ids.push(started.body.data.execution_id);
    }
    const parked = await Promise.all(
      ids.map((id) =>
        waitForExecution(api, flow, id, (e) =>
          e.step_results.some((s: { status: string }) => s.status === 'waiting'),
        ),
      ),
    );
    const wakes = parked.map((e) =>
      Date.parse(e.step_results.find((s: any) => s.wakes_at).wakes_at),
    );
    return { ids, firstWake: Math.min(...wakes), lastWake: Math.max(...wakes) };
  };
  let batch = await parkRuns();
  const clock = async () => {
    const shown = await d.cli(['clock', '--json']);
    assertExit(t, shown, 0);
    return shown.json<{ now: string; offset_ms: number; frozen: boolean }>();
  };
  const before = await clock();
  t.false(before.frozen, 'the sandbox clock ticks');
  const waiting = async () => {
    for (const id of batch.ids) {
      const run = await getExecution(api, flow, id);
      t.is(run.status, 'running', id);
      t.is(run.current_step, 'pause', id);
    }
  };

  // The disk is full: the move is refused whole (the clock would pass the wake-ups).
  fileSizeLimit(d.pid, 1);
  const refused = await d.cli(['clock', 'advance', '20m', '--json']);
  t.not(refused.code, 0, refused.stdout);
  t.is(refused.json().error.code, 'insufficient_storage', refused.stdout);
  t.regex(refused.json().error.message, /Free space/);
  const during = await clock();
  t.is(during.offset_ms, before.offset_ms, 'the clock did not move');
  await waiting();

  // Space is freed: the clock is where it was, nothing is due (settle answers at once), and the
  // same move goes through, running every wake-up it passes.
  fileSizeLimit(d.pid, 'unlimited');
  t.is((await clock()).offset_ms, before.offset_ms);
  assertExit(t, await d.cli(['settle', '--timeout', '30s']), 0);
  await waiting();

  // Wake-ups that fall due on the ticking clock while the disk is full: the clock is set a few
  // seconds of real time before them (the disk still has space), then the disk fills. Whether
  // it filled in time is read on the sandbox clock (reads work on a full disk): still before
  // the first wake-up. On a machine so loaded that it did not, the disk is freed, those runs
  // end, and the same is done again with new runs and twice the margin, so the check holds on
  // a slow machine, never assumed of a fast one.
  let margin = 3_000;
  for (let tries = 1; ; tries += 1) {
    await control(d, 'clock.set', { to: new Date(batch.firstWake - margin).toISOString() });
    fileSizeLimit(d.pid, 1);
    const filledBy = Date.parse((await clock()).now);
    if (filledBy < batch.firstWake) break;
    t.log(
      `try ${tries}: the disk filled ${filledBy - batch.firstWake + margin} ms after the clock was set, past the ${margin} ms margin`,
    );
    if (tries === 4) t.fail(`the disk never filled within ${margin} ms of setting the clock`);
    fileSizeLimit(d.pid, 'unlimited');
    assertExit(t, await d.cli(['settle', '--timeout', '4m']), 0);
    batch = await parkRuns();
    margin *= 2;
  }
  // Wait on the sandbox clock until the wake-ups are due.
  for (;;) {
    const shown = await clock();
    if (Date.parse(shown.now) > batch.lastWake) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  // Their work cannot be stored: svc settle names them, due in the past, and the runs wait on.
  const stuck = await d.cli(['settle', '--timeout', '2s', '--json']);
  t.not(stuck.code, 0, stuck.stdout);
  t.is(stuck.json().error.code, 'wait_timeout', stuck.stdout);
  t.regex(stuck.json().error.message, /step pause waiting, wake-up due at/);
  await waiting();

  // Space is freed, and the clock is not moved: they run, and svc settle answers.
  fileSizeLimit(d.pid, 'unlimited');
  // The longest settle there is: a bound against a hang only (20 runs on a loaded machine).
  const settled = await d.cli(['settle', '--timeout', '4m', '--json']);
  assertExit(t, settled, 0);
  for (const id of batch.ids) {
    const run = await getExecution(api, flow, id);
    t.like(run, { status: 'completed', steps_completed: 2 }, id);
  }
  // A wake-up the full disk refused was not a failed attempt: none was buried.
  const status = await d.cli(['daemon', 'status', '--json']);
  assertExit(t, status, 0);
  t.is(status.json().dead_timers, 0);
});
