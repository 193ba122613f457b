// The daemon gives memory back once a burst is over: a full collection on the main thread and a
// trim message to each worker, after 2 and again after 9 quiet checks that follow busy ones,
// and not again until it has been busy since and has grown TRIM_GROWTH_BYTES.
import test from 'ava';
import { execFileSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MemoryTrimmer, TRIM_GROWTH_BYTES } from '../../daemon/platform/memory-trim.js';

const MODULE = fileURLToPath(new URL('../../daemon/platform/memory-trim.ts', import.meta.url));

const MB = 1024 * 1024;

/** A trimmer whose process has `memory.resident` bytes (grown by a test, shrunk by a collection). */
function trimmer() {
  const calls = { collected: 0, workers: [0, 0] };
  const workers = calls.workers.map((_, index) => ({
    trim: () => {
      calls.workers[index]! += 1;
    },
  }));
  const size = { resident: 300 * MB };
  const memory = new MemoryTrimmer(
    workers,
    () => {
      calls.collected += 1;
      size.resident = 100 * MB;
    },
    () => size.resident,
  );
  return { memory, calls, size };
}

test('quiet checks after a busy one collect on the main thread and in every worker, twice', (t) => {
  const { memory, calls } = trimmer();
  t.false(memory.check(0.6), 'busy: nothing yet');
  t.false(memory.check(0.001), 'one quiet check is not enough');
  t.true(memory.check(0.001), 'the second quiet check in a row trims');
  t.deepEqual(calls, { collected: 1, workers: [1, 1] });
  for (let check = 3; check < 9; check += 1) t.false(memory.check(0.001), `quiet check ${check}`);
  t.true(memory.check(0.001), 'the ninth quiet check in a row trims again');
  t.deepEqual(calls, { collected: 2, workers: [2, 2] });
  for (let i = 0; i < 10; i += 1) t.false(memory.check(0.001), 'quiet since: nothing more');
  t.is(calls.collected, 2);
});

test('a check between quiet and busy starts the quiet count over; a new burst trims again', (t) => {
  const { memory, calls, size } = trimmer();
  memory.check(0.5);
  memory.check(0.001);
  t.false(memory.check(0.03), 'neither quiet nor busy: the count starts over');
  t.false(memory.check(0.001));
  t.true(memory.check(0.001));
  memory.check(0.9);
  size.resident += TRIM_GROWTH_BYTES;
  memory.check(0.001);
  t.true(memory.check(0.001), 'busy again and grown, then quiet: trimmed again');
  t.deepEqual(calls, { collected: 2, workers: [2, 2] });
});

test('a burst that left the process about as large as the last collection did is not trimmed', (t) => {
  const { memory, calls, size } = trimmer();
  for (let i = 0; i < 10; i += 1) memory.check(0.001);
  t.is(calls.collected, 2, 'the start-up is trimmed twice');
  // A request now and then: a few MB each time, never collected for.
  for (let burst = 0; burst < 5; burst += 1) {
    memory.check(0.5);
    size.resident += 10 * MB;
    for (let i = 0; i < 10; i += 1) t.false(memory.check(0.001), `burst ${burst}, check ${i}`);
  }
  t.deepEqual(calls, { collected: 2, workers: [2, 2] });
  // 170 MB now, past 100 + 64 since the last collection: the next burst has both its trims.
  memory.check(0.5);
  size.resident += 20 * MB;
  for (let i = 0; i < 10; i += 1) memory.check(0.001);
  t.deepEqual(calls, { collected: 4, workers: [4, 4] });
});

test('the start-up counts as busy: a daemon that stays quiet from the start trims twice', (t) => {
  const { memory, calls } = trimmer();
  for (let i = 0; i < 20; i += 1) memory.check(0.001);
  t.is(calls.collected, 2);
});

test('without a collector (no --expose-gc) it never starts; with one it runs until stopped', (t) => {
  const without = new MemoryTrimmer([], undefined);
  without.start();
  t.false(without.running);
  const { memory } = trimmer();
  memory.start();
  t.true(memory.running);
  memory.stop();
  t.false(memory.running);
});

test('the collection gives freed heap pages back, which a plain gc() keeps from Node 22 on', (t) => {
  // A child with --expose-gc grows its heap to ~150 MB of short-lived objects, then collects once
  // with heapReleaser(); heapTotal is what V8 still holds afterwards (after a plain gc() on Node
  // 24: 138 MB of the 245 MB grown; after heapReleaser(): 8 MB).
  const script = `
    const { heapReleaser } = await import(${JSON.stringify(pathToFileURL(MODULE).href)});
    let keep = [];
    for (let i = 0; i < 2e6; i++) { keep.push({ a: i, b: 'x' + i }); if (keep.length > 5e5) keep = []; }
    keep = null;
    const grown = process.memoryUsage().heapTotal;
    heapReleaser()();
    process.stdout.write(JSON.stringify([grown, process.memoryUsage().heapTotal].map((b) => b / 1048576)));`;
  const [grown, held] = JSON.parse(
    execFileSync(
      process.execPath,
      ['--expose-gc', '--import=tsx', '--input-type=module', '-e', script],
      { encoding: 'utf8' },
    ),
  ) as [number, number];
  t.log(`heap grown to ${grown.toFixed(0)} MB; held after heapReleaser(): ${held.toFixed(0)} MB`);
  t.true(grown > 50, 'the child grew its heap');
  t.true(held < 20, `heapReleaser() left ${held.toFixed(0)} MB of heap held`);
});
