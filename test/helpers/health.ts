// How long a daemon stopped serving while something ran: /healthz polled back to back, the
// longest time between two answers. A blocked event loop shows as one long gap.
import { performance } from 'node:perf_hooks';

/** A probe that gets no answer in this time counts as none: the gap goes on growing. */
const PROBE_TIMEOUT_MS = 10_000;

/**
 * Polls `${target.url}/healthz` back to back while `during` runs; answers its result, the
 * longest gap between two answers (ms; any status: the daemon's loop answered) and how many
 * probes were answered. A probe that fails or times out is no answer, so a wedged daemon shows
 * as a gap as long as the wedge, not as a test that hangs on its probe.
 */
export async function longestHealthGap<T>(
  target: { url: string },
  during: () => Promise<T>,
): Promise<{ result: T; gapMs: number; probes: number }> {
  let running = true;
  let gapMs = 0;
  let probes = 0;
  const poller = (async () => {
    let last = performance.now();
    while (running) {
      try {
        const answer = await fetch(`${target.url}/healthz`, {
          signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
        });
        await answer.arrayBuffer();
        const now = performance.now();
        gapMs = Math.max(gapMs, now - last);
        last = now;
        probes += 1;
      } catch {
        // No answer: the gap since the last one keeps growing (a short pause: a refused
        // connection fails at once).
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }
    gapMs = Math.max(gapMs, performance.now() - last);
  })();
  let result: T;
  try {
    result = await during();
  } finally {
    running = false;
    await poller;
  }
  return { result, gapMs, probes };
}

/**
 * A stall bound set by a baseline measured in the same test: the longest gap while the daemon
 * does comparable work without the costly part (a body of the same size with no expressions,
 * say), times STALL_RATIO, and never under STALL_FLOOR_MS. Load stretches both gaps alike, so a
 * loaded machine raises the bound instead of failing the test; the defects these tests guard
 * against held the loop 1-5 s where the baseline's gap was tens of ms.
 */
export const STALL_FLOOR_MS = 1_000;
export const STALL_RATIO = 4;
export function stallBound(baselineGapMs: number): number {
  return Math.max(STALL_FLOOR_MS, STALL_RATIO * baselineGapMs);
}
