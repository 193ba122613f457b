// Waiting on something a test helper is told about (a request arrived, a line was printed, an
// event came): whoever learns of news calls wake(), and each wait looks again then, bounded by
// a timeout that only fails the test.

/**
 * How long a wait for something the test caused goes on before it fails the test. Waits end on
 * the news, so this only guards a hang: 15 s was reached on a loaded 2-core machine (a CLI
 * process that took that long to start), 60 s is not, and stays well inside ava's timeout.
 */
export const HANG_TIMEOUT_MS = 60_000;

export class Wakeup {
  private readonly waiters = new Set<() => void>();

  /** Something happened: every wait looks again. */
  wake(): void {
    for (const wake of [...this.waiters]) wake();
  }

  /** Resolves true once `check` holds (looked at on each wake), false after `timeoutMs`. */
  async until(check: () => boolean, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!check()) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, left);
        this.waiters.add(wake);
      });
    }
    return true;
  }
}

/**
 * Looks again (real time, every `everyMs`) until `done` holds, for what another process changes
 * (another daemon of a sandbox): throws naming `what` and the last value after HANG_TIMEOUT_MS.
 */
export async function lookUntil<T>(
  look: () => Promise<T>,
  done: (value: T) => boolean,
  what: string,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + HANG_TIMEOUT_MS;
  for (;;) {
    const value = await look();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
