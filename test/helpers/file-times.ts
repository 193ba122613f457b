// Loaded by ava in each test file's worker before the file (package.json, ava.require). When the
// gate asks (GATE_FILE_TIMES names a file), the worker adds one JSON line to it as it exits: the
// test file, its wall seconds from the worker's start (loader and imports included) and the CPU
// seconds of the worker and of the processes it waited for (CLI calls, Chromium). A detached
// daemon's time is not in them (the gate's total counts it: scripts/cpu-accounting.mjs). The
// gate's closing lines list the slowest files from these (scripts/test-times.mjs --from).
import { appendFileSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';

/** /proc's clock ticks (USER_HZ): 100 on every Linux that Node runs on. */
const TICKS_PER_SECOND = 100;

/** This process's CPU seconds and those of the children it waited for (Linux), else its own. */
function cpuSeconds(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields.slice(11, 15).reduce((sum, value) => sum + Number(value), 0) / TICKS_PER_SECOND;
  } catch {
    const usage = process.cpuUsage();
    return (usage.user + usage.system) / 1e6;
  }
}

const out = process.env.GATE_FILE_TIMES;
if (out) {
  process.on('exit', () => {
    const file = test.meta.file.startsWith('file:')
      ? fileURLToPath(test.meta.file)
      : test.meta.file;
    const line = {
      file: relative(process.cwd(), file),
      seconds: process.uptime(),
      cpu: cpuSeconds(),
    };
    appendFileSync(out, `${JSON.stringify(line)}\n`);
  });
}
