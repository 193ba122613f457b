// cli/interrupt.ts: Ctrl-C or SIGTERM during a CLI wait sets the flag and wakes the loop once;
// after remove() the wait no longer listens. Signals are emitted on `process`, not sent, so
// the test process itself is never signalled.
import test from 'ava';
import { onInterrupt } from '../../cli/interrupt.js';

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  test.serial(`${signal} sets interrupted and wakes the loop once`, (t) => {
    const before = { int: process.listenerCount('SIGINT'), term: process.listenerCount('SIGTERM') };
    let woken = 0;
    const interrupt = onInterrupt(() => (woken += 1));
    t.false(interrupt.interrupted);
    t.is(process.listenerCount('SIGINT'), before.int + 1);
    t.is(process.listenerCount('SIGTERM'), before.term + 1);
    process.emit(signal);
    t.true(interrupt.interrupted);
    t.is(woken, 1);
    interrupt.remove();
    t.is(process.listenerCount('SIGINT'), before.int);
    t.is(process.listenerCount('SIGTERM'), before.term);
  });
}

test.serial('after remove() a signal neither wakes nor interrupts the wait', (t) => {
  const before = process.listenerCount('SIGINT');
  let woken = 0;
  const interrupt = onInterrupt(() => (woken += 1));
  interrupt.remove();
  t.is(process.listenerCount('SIGINT'), before);
  process.emit('SIGINT');
  t.false(interrupt.interrupted);
  t.is(woken, 0);
});
