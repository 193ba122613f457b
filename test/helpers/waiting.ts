// Waiting on something a test helper is told about (a request arrived, a line was printed, an
// event came): whoever learns of news calls wake(), and each wait looks again then, bounded by
// a timeout that only fails the test.

/**
 * How long a wait for something the test caused goes on before it fails the test. Waits end on
 * the news, so this only guards a hang: 15 s was reached on a loaded 2-core machine (a CLI
 * process that took that long to start), and 60 s at load 45-60 (three loaded gates beside four
 * CPU hogs, where one CLI call took 45-77 s); 3 minutes stays inside ava's 5-minute timeout.
 */
export const HANG_TIMEOUT_MS = 180_000;

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

/**
 * `promise`'s outcome; rejects naming `what` if it has not settled after `timeoutMs`
 * (HANG_TIMEOUT_MS by default). For a wait on something the test caused (an event, a handler
 * run, a stop): the bound only turns a hang into a failure that says what hung, it never
 * measures how fast the machine is.
 */
export async function unlessHung<T>(
  promise: Promise<T>,
  what: string,
  timeoutMs = HANG_TIMEOUT_MS,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what}: not within ${timeoutMs / 1000} s (a hang)`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([promise, hung]);
  } finally {
    clearTimeout(timer);
  }
}
