import test from 'ava';
import { describeFloor, FLOORS, holds, TOLERANCE } from '../../bench/floors.js';

// The bench's verdicts: a row fails only when it falls more than TOLERANCE beyond its floor.

test('a rate or ratio holds down to 10% below its floor and fails past it', (t) => {
  t.is(TOLERANCE, 0.1);
  const floor = FLOORS.runsPerSecond; // 2,300 runs/s
  t.true(holds(floor, 2300));
  t.true(holds(floor, 2070));
  t.false(holds(floor, 2069));
  t.true(holds(FLOORS.eventsRatio, 0.54));
  t.false(holds(FLOORS.eventsRatio, 0.539));
});

test('a latency, memory or start-up cost holds up to 10% above its floor and fails past it', (t) => {
  const floor = FLOORS.idleRssMb; // 110 MB
  t.true(holds(floor, 80));
  t.true(holds(floor, 121));
  t.false(holds(floor, 121.1));
  t.true(holds(FLOORS.cliStartupRatio, 1.65));
  t.false(holds(FLOORS.cliStartupRatio, 1.66));
});

test('the floor column names the floor and where the row starts failing', (t) => {
  t.is(describeFloor(FLOORS.runsPerSecond), 'floor >= 2300 (fails < 2070)');
  t.is(describeFloor(FLOORS.authMeRatio), 'floor >= 0.6 (fails < 0.54)');
  t.is(describeFloor(FLOORS.idleRssMb), 'floor <= 110 (fails > 121)');
  t.is(describeFloor(FLOORS.triggerIntakeRatio), 'floor >= 0.14 (fails < 0.126)');
});

test('the floors are the figures issue 42 reset the targets to', (t) => {
  t.like(FLOORS, {
    authMeRatio: { value: 0.6, better: 'higher' },
    agentReadRatio: { value: 0.5, better: 'higher' },
    eventsRatio: { value: 0.6, better: 'higher' },
    triggerIntakeRatio: { value: 0.14, better: 'higher' },
    runsPerSecond: { value: 2300, better: 'higher' },
    runP99Ms: { value: 50, better: 'lower' },
    deliveriesPerSecond: { value: 5000, better: 'higher' },
    idleRssMb: { value: 110, better: 'lower' },
  });
});
