// `svc logs --level warn` picks the lines first, then takes the last N (issue 55, point 9): with
// 10 warnings among 300 lines, all 10 show under the default -n 50, not the 4 that happened
// to be among the last 50 lines. The log is written as the daemon writes it (pino's JSON lines)
// in a data dir of the test's own; svc logs reads the file, no daemon needed.
import test from 'ava';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../helpers/daemon.js';
import { tempDir } from '../helpers/temp-dir.js';

function logWithWarnings(): { env: Record<string, string>; warnings: string[] } {
  const dataDir = tempDir('svc-e2e-logs-');
  mkdirSync(join(dataDir, 'logs'));
  const lines: string[] = [];
  const warnings: string[] = [];
  for (let i = 0; i < 300; i += 1) {
    const time = new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
    if (i % 33 === 0) {
      const msg = `warning ${warnings.length + 1}`;
      warnings.push(msg);
      lines.push(JSON.stringify({ level: 'warn', time, msg }));
    } else {
      lines.push(JSON.stringify({ level: 'info', time, msg: `request ${i}` }));
    }
  }
  writeFileSync(join(dataDir, 'logs', 'daemon.log'), lines.join('\n') + '\n');
  return { env: { SVC_DATA_DIR: dataDir }, warnings };
}

const messages = (stdout: string) =>
  stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { msg: string }).msg);

test('--level picks first, then -n takes the last lines of those', async (t) => {
  const { env, warnings } = logWithWarnings();
  t.is(warnings.length, 10);

  const all = await runCli(['logs', '--level', 'warn', '--json'], { env });
  t.is(all.code, 0, all.stderr);
  t.deepEqual(messages(all.stdout), warnings, 'every warning, under the default -n 50');

  const lastThree = await runCli(['logs', '--level', 'warn', '-n', '3', '--json'], { env });
  t.deepEqual(messages(lastThree.stdout), warnings.slice(-3));

  const none = await runCli(['logs', '--level', 'warn', '-n', '0', '--json'], { env });
  t.is(none.code, 0);
  t.is(none.stdout, '', '-n 0 prints nothing');

  const plain = await runCli(['logs'], { env });
  t.is(plain.stdout.trim().split('\n').length, 50, 'without --level, the last 50 lines');
  t.regex(plain.stdout.trim().split('\n').at(-1) ?? '', /request 299/);
});
