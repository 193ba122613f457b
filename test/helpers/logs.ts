// The daemon's log file, which the logger writes in batches: wait for a line to be out on the
// file's own change events (fs.watch on the data dir and then on its logs folder),
// with a bound that only fails the test.
import { existsSync, readFileSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { HANG_TIMEOUT_MS } from './waiting.js';

export function logFile(dataDir: string): string {
  return join(dataDir, 'logs', 'daemon.log');
}

export function readLog(dataDir: string): string {
  const file = logFile(dataDir);
  return existsSync(file) ? readFileSync(file, 'utf8') : '';
}

/** Resolves true once the log holds what `check` wants, false after `timeoutMs`. */
export function waitForLog(
  dataDir: string,
  check: (log: string) => boolean,
  timeoutMs = HANG_TIMEOUT_MS,
): Promise<boolean> {
  const folder = join(dataDir, 'logs');
  return new Promise((resolve) => {
    let done = false;
    const watchers: FSWatcher[] = [];
    let inLogs: FSWatcher | undefined;
    const finish = (result: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      for (const watcher of watchers) watcher.close();
      resolve(result);
    };
    const look = () => {
      // The folder appears with the daemon's first write: watch it as soon as it is there.
      if (!inLogs && existsSync(folder)) watchers.push((inLogs = watch(folder, look)));
      if (check(readLog(dataDir))) finish(true);
    };
    // Watching first, then looking: a write between the two is seen either way.
    watchers.push(watch(dataDir, look));
    const timer = setTimeout(() => finish(check(readLog(dataDir))), timeoutMs);
    look();
  });
}
