// The daemon's log lines are gathered and written to the log file in batches: every line
// reaches the file, in order, once a batch fills, on flush (the 200 ms tick and a graceful
// stop) and on flushSync (process exit); none is written twice.
import test from 'ava';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { LineBatcher } from '../../daemon/platform/logger.js';

function logFile(t: { teardown(fn: () => void): void }) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-log-batcher-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'daemon.log');
  // As the daemon's (daemon/platform/logger.ts): batches are written synchronously.
  const out = pino.destination({ dest: file, sync: true });
  return { file, out, batcher: new LineBatcher(out), lines: () => readLines(file) };
}

function readLines(file: string): string[] {
  try {
    return readFileSync(file, 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

const line = (n: number) => `{"n":${n},"msg":"${'x'.repeat(100)}"}\n`;

test('lines wait for a full batch, then all of them reach the file in order', async (t) => {
  const { out, batcher, lines } = logFile(t);
  await new Promise((resolve) => out.once('ready', resolve));
  batcher.write(line(0));
  await new Promise((resolve) => setTimeout(resolve, 50));
  t.deepEqual(lines(), [], 'one line is held until the batch fills or a flush');
  for (let n = 1; n < 200; n += 1) batcher.write(line(n));
  batcher.flushSync();
  t.deepEqual(
    lines().map((text) => (JSON.parse(text) as { n: number }).n),
    Array.from({ length: 200 }, (_, n) => n),
  );
});

test('flush writes what is held and calls back', async (t) => {
  const { out, batcher, lines } = logFile(t);
  await new Promise((resolve) => out.once('ready', resolve));
  batcher.write(line(1));
  batcher.write(line(2));
  await new Promise<void>((resolve, reject) =>
    batcher.flush((error) => (error ? reject(error) : resolve())),
  );
  t.is(lines().length, 2);
  batcher.flushSync();
  t.is(lines().length, 2, 'nothing is written twice');
});

test('a pino logger on a batcher writes every line it logged by the time flushSync returns', async (t) => {
  const { out, batcher, lines } = logFile(t);
  await new Promise((resolve) => out.once('ready', resolve));
  const logger = pino({ base: null, timestamp: false }, batcher);
  for (let n = 0; n < 1000; n += 1) logger.info({ n }, 'request');
  batcher.flushSync();
  const logged = lines().map((text) => (JSON.parse(text) as { n: number }).n);
  t.is(logged.length, 1000);
  t.deepEqual(logged.slice(0, 3), [0, 1, 2]);
  t.is(logged.at(-1), 999);
});
