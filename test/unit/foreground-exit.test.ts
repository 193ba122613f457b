// How `svc daemon start --foreground` turns the end of its daemon process into its own exit code
// (cli/foreground-exit.ts): a supervisor's group signal never makes a clean stop look like a crash.
import test from 'ava';
import { foregroundExit, type ForegroundEnd } from '../../cli/foreground-exit.js';

const ended = (end: Partial<ForegroundEnd>): ForegroundEnd => ({
  code: null,
  signal: null,
  stoppedCode: undefined,
  handlesSignals: true,
  signalsReceived: 0,
  ...end,
});

test('a finished graceful stop answers its own code, whatever ended the process after', (t) => {
  t.deepEqual(foregroundExit(ended({ code: 0, stoppedCode: 0, signalsReceived: 1 })), { code: 0 });
  t.deepEqual(foregroundExit(ended({ signal: 'SIGTERM', stoppedCode: 0, signalsReceived: 2 })), {
    code: 0,
  });
  t.deepEqual(foregroundExit(ended({ code: 1, stoppedCode: 1 })), { code: 1 });
});

test('a group signal that reached the daemon before it ran any code is a clean stop', (t) => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    t.deepEqual(
      foregroundExit(ended({ signal, handlesSignals: false, signalsReceived: 1 })),
      { code: 0 },
      signal,
    );
  }
});

test('a daemon killed otherwise is reported with exit 1', (t) => {
  // Once it handles signals, a SIGTERM cannot end it: something else went wrong.
  t.deepEqual(foregroundExit(ended({ signal: 'SIGTERM', signalsReceived: 1 })), {
    code: 1,
    message: 'the daemon was ended by SIGTERM',
  });
  // Killed during start-up while this CLI was asked for nothing.
  t.deepEqual(foregroundExit(ended({ signal: 'SIGTERM', handlesSignals: false })), {
    code: 1,
    message: 'the daemon was ended by SIGTERM',
  });
  t.deepEqual(
    foregroundExit(ended({ signal: 'SIGKILL', handlesSignals: false, signalsReceived: 1 })),
    { code: 1, message: 'the daemon was ended by SIGKILL' },
  );
});

test('an exit code without a graceful stop is passed on and named', (t) => {
  t.deepEqual(foregroundExit(ended({ code: 3 })), {
    code: 3,
    message: 'the daemon exited with code 3',
  });
  t.deepEqual(foregroundExit(ended({ code: 0 })), { code: 0 });
});
