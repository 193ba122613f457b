// How the daemon counts stops (daemon/stop-signals.ts): the first two signals ask for the
// graceful stop, the third forces the exit; stop requests that are no signal never force; a
// stop asked for before the daemon runs is answered when it does. Signals are emitted on
// `process` (the listeners run; nothing is sent to the process).
import test from 'ava';
import { StopSignals, type StopHandlers } from '../../daemon/stop-signals.js';

function recorder(): StopHandlers & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    stop: (reason) => calls.push(`stop ${reason}`),
    again: (reason) => calls.push(`again ${reason}`),
    force: (reason) => calls.push(`force ${reason}`),
  };
}

test.serial('signals: two stop gracefully, the third forces; requests never count', (t) => {
  const signals = new StopSignals().install();
  t.teardown(() => {
    process.removeAllListeners('SIGTERM');
    process.removeAllListeners('SIGINT');
  });
  const handlers = recorder();
  signals.attach(handlers);
  process.emit('SIGTERM', 'SIGTERM');
  signals.request('SIGTERM to the foreground CLI');
  signals.request('the foreground CLI went away');
  process.emit('SIGINT', 'SIGINT');
  t.deepEqual(handlers.calls, [
    'stop SIGTERM',
    'again SIGTERM to the foreground CLI',
    'again the foreground CLI went away',
    'again SIGINT',
  ]);
  process.emit('SIGTERM', 'SIGTERM');
  t.is(handlers.calls.at(-1), 'force SIGTERM received 3 times');
});

test.serial('a signal during start-up is answered once the daemon runs', (t) => {
  const signals = new StopSignals().install();
  t.teardown(() => {
    process.removeAllListeners('SIGTERM');
    process.removeAllListeners('SIGINT');
  });
  process.emit('SIGTERM', 'SIGTERM');
  t.true(signals.stopRequested);
  const handlers = recorder();
  signals.attach(handlers);
  t.deepEqual(handlers.calls, ['stop SIGTERM']);
});
