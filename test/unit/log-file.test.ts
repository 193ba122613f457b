// The daemon's log file never throws on a failed write: on /dev/full (Linux) every write fails
// with ENOSPC, as on a full disk. The lines are dropped and counted. (That the count is written
// once space is back, and that the daemon keeps serving, is checked end to end in
// test/e2e/full-disk.test.ts.)
import test from 'ava';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { LogFile } from '../../daemon/platform/log-file.js';
import { LineBatcher } from '../../daemon/platform/logger.js';

const lines = (count: number, from = 0) =>
  Array.from({ length: count }, (_, n) => `{"n":${from + n}}\n`).join('');

test('writes on a full disk (/dev/full) are dropped and counted, never thrown', (t) => {
  const file = new LogFile('/dev/full');
  t.notThrows(() => file.write(lines(3)));
  t.notThrows(() => file.write(lines(2, 3)));
  t.is(file.droppedLines, 5);
  // A pino logger on top, as in the daemon: logging goes on, nothing is thrown.
  const batcher = new LineBatcher(file);
  const logger = pino({ base: null }, batcher);
  t.notThrows(() => {
    for (let n = 0; n < 500; n += 1) logger.info({ n }, 'request');
    batcher.flushSync();
  });
  t.is(file.droppedLines, 505);
});

test('on a disk with room every line is appended, in order, and nothing is reported', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-log-file-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'daemon.log');
  const file = new LogFile(path);
  file.write(lines(2));
  file.write(lines(2, 2));
  t.is(file.droppedLines, 0);
  t.is(readFileSync(path, 'utf8'), lines(4));
});
