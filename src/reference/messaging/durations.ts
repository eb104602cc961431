/**
 * Durations as the real service writes them in headers and bodies: `10s`, `5m`, `1h`, `7d`, `500ms`,
 * or a bare number of seconds (`Svc-Timeout: 30`).
 */

const unitMs: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Milliseconds, or undefined when `text` is not a duration. */
export function parseDuration(text: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(text);
  if (match === null) return undefined;
  const value = Number(match[1]) * (unitMs[match[2] ?? 's'] ?? 1000);
  return Number.isFinite(value) ? Math.round(value) : undefined;
}
