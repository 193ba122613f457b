// Durations as the CLI and the control channel take them: 30s, 5m, 1h, 2d, 1w, or ISO 8601 (PT1H, P1D).

const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

const ISO =
  /^P(?:(\d+(?:\.\d+)?)W)?(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/i;

/** Milliseconds, or null when the text is not a duration. */
export function parseDuration(text: string): number | null {
  const trimmed = text.trim();
  const short = /^(\d+(?:\.\d+)?)(ms|s|m|h|d|w)$/.exec(trimmed);
  if (short) return Math.round(Number(short[1]) * (UNIT_MS[short[2]!] ?? 0));
  const iso = ISO.exec(trimmed);
  if (iso && trimmed.toUpperCase() !== 'P' && !trimmed.toUpperCase().endsWith('T')) {
    const [, w, d, h, m, s] = iso.map((part) => Number(part ?? 0));
    return Math.round(
      (w ?? 0) * UNIT_MS.w! +
        (d ?? 0) * UNIT_MS.d! +
        (h ?? 0) * UNIT_MS.h! +
        (m ?? 0) * UNIT_MS.m! +
        (s ?? 0) * 1000,
    );
  }
  return null;
}

/**
 * The one human form of a duration, for the CLI and the daemon's messages: 449ms, 2.35s, 12.3s,
 * then whole units from the largest to the last that is not zero, zeros between them kept so
 * that no unit is skipped silently: 1m 30s, 4h 0m 1s, 1d 2h, 30d.
 */
export function formatDuration(ms: number): string {
  const sign = ms < 0 ? '-' : '';
  const abs = Math.abs(ms);
  if (abs < 1000) return `${sign}${Math.round(abs)}ms`;
  // Under a minute the fraction still says something (a step took 2.35s, not 2s).
  if (abs < 59_950) return `${sign}${Number((abs / 1000).toFixed(abs < 10_000 ? 2 : 1))}s`;
  let rest = Math.round(abs / 1000) * 1000;
  const units = [
    ['d', UNIT_MS.d!],
    ['h', UNIT_MS.h!],
    ['m', UNIT_MS.m!],
    ['s', 1000],
  ] as const;
  const counts = units.map(([unit, size]) => {
    const count = Math.floor(rest / size);
    rest -= count * size;
    return [unit, count] as const;
  });
  const first = counts.findIndex(([, count]) => count > 0);
  const last = counts.findLastIndex(([, count]) => count > 0);
  return (
    sign +
    counts
      .slice(first, last + 1)
      .map(([unit, count]) => `${count}${unit}`)
      .join(' ')
  );
}

/** A clock offset: +1h, -30m, 0ms. */
/**
 * An advance in one unit (svc clock advance takes one) that reaches `ms`: whole seconds under a
 * minute, else whole minutes (hours when even), so a ticking clock's 898.8 s reads 15m; it
 * overshoots by less than a minute (what falls due in it fires too).
 */
export function advanceBy(ms: number): string {
  if (ms <= 60_000) return `${Math.max(1, Math.ceil(ms / 1000))}s`;
  const minutes = Math.ceil(ms / 60_000);
  return minutes % 60 === 0 ? `${minutes / 60}h` : `${minutes}m`;
}

export function formatOffset(ms: number): string {
  return ms > 0 ? `+${formatDuration(ms)}` : formatDuration(ms);
}
