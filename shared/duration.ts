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

/** A short human form: 1h 5m, 30s, 2d. */
export function formatDuration(ms: number): string {
  const sign = ms < 0 ? '-' : '';
  let rest = Math.abs(Math.round(ms));
  if (rest < 1000) return `${sign}${rest}ms`;
  const parts: string[] = [];
  for (const [unit, size] of [
    ['d', UNIT_MS.d!],
    ['h', UNIT_MS.h!],
    ['m', UNIT_MS.m!],
    ['s', 1000],
  ] as const) {
    const count = Math.floor(rest / size);
    if (count > 0) parts.push(`${count}${unit}`);
    rest -= count * size;
  }
  return sign + parts.join(' ');
}
