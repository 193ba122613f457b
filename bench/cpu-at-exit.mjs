// Preloaded (--import) into a process the bench measures: prints its user+system CPU seconds on
// stderr as it exits (bench/cases/bundle.ts).
import { writeSync } from 'node:fs';

process.on('exit', () => {
  const { user, system } = process.cpuUsage();
  writeSync(2, `\ncpu-seconds ${(user + system) / 1e6}\n`);
});
