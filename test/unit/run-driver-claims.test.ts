// Team mode's step claims in the run driver (engine/driver.ts): a step attempt starts only where
// its claim is taken, on the state the daemon read (cluster/step-claims.ts), and whoever moves a
// run's state pumps it again. Here the driver's store and steps are stand-ins, so the moment
// another daemon's work lands between two of this daemon's reads is chosen, not raced.
import test from 'ava';
import type { StepClaims } from '../../daemon/cluster/step-claims.js';
import { RunDriver, type RunDriverDeps } from '../../daemon/engine/driver.js';
import { InFlight } from '../../daemon/engine/in-flight.js';
import type { RunRow } from '../../daemon/engine/run.repository.js';
import type { StepOutcome } from '../../daemon/engine/steps/outcome.js';
import { writeRunState, type Activation, type RunState } from '../../daemon/store/run-state.js';

const act = (key: string, more: Partial<Activation> = {}): Activation => ({
  key,
  step_id: key,
  attempt: 1,
  branch: 'join',
  state: 'ready',
  started_at: 0,
  ...more,
});

function frontier(acts: Activation[]): string {
  const state: RunState = {
    n: acts.length,
    seq: 1,
    acts,
    joins: [
      {
        key: 'join',
        step_id: 'fork',
        branch: null,
        pending: 2,
        wait_for_all: true,
        started_at: 0,
      },
    ],
    last_seq: null,
    armed: false,
    interpolated: 0,
  };
  return writeRunState(state);
}

/** Lets the driver's promise chains run (no time passes: turns of the event loop). */
async function turns(count = 20): Promise<void> {
  for (let turn = 0; turn < count; turn += 1) await new Promise((done) => setImmediate(done));
}

test('a webhook call stored as sent pumps its run again: a sibling another daemon made ready meanwhile starts at once', async (t) => {
  // The run's row as this daemon reads it: the first call ready.
  let row = { id: 'exec_1', status: 'running', frontier: frontier([act('first')]) } as RunRow;
  const started: string[] = [];
  const claimed: string[] = [];
  const claims: StepClaims = {
    claim: (_id, key, _attempt, read) => {
      // The claim holds only on the state stored now (the store's check).
      if (read !== row.frontier) return false;
      claimed.push(key);
      return true;
    },
    settle: () => undefined,
    release: () => undefined,
  };
  const deps = {
    repo: { get: () => row, status: () => row.status },
    commits: { run: async <T>(work: () => T) => work() },
    steps: {
      // Calls are held: answered after the test.
      run: (context: { act: Activation }) => {
        started.push(context.act.key);
        return new Promise<StepOutcome>(() => undefined);
      },
    },
    contexts: {
      of: (_row: RunRow, _state: RunState, activation: Activation) => ({
        act: activation,
        step: { id: activation.step_id, type: 'webhook', config: {} },
      }),
    },
    transitions: {
      // The first call's attempt is stored as sent; meanwhile another daemon's transition (a
      // wait's timer fired there) made the second ready, and its pump read the state this
      // replaces: its claim of the second found the state moved on, and left it.
      sending: () => {
        row = {
          ...row,
          frontier: frontier([act('first', { sent_seq: 1 }), act('second')]),
        };
        return 1;
      },
    },
    inFlight: new InFlight(),
    memory: { release: () => undefined, forget: () => undefined },
    waiters: { watchDeadline: () => undefined },
    claims,
    log: { error: () => undefined },
  } as unknown as RunDriverDeps;
  const driver = new RunDriver(deps);
  driver.pump('exec_1');
  await turns();
  t.deepEqual(claimed, ['first', 'second']);
  t.deepEqual(started, ['first', 'second'], 'the second call starts while the first is in flight');
  driver.stop();
});
