/**
 * Durations as the real service writes them in headers and bodies (`10s`, `5m`, `1h`, `7d`, `500ms`,
 * `1m30s`, or a bare number of seconds: `Svc-Timeout: 30`), in the harness's one grammar
 * (shared/duration.ts), rounded to whole milliseconds as the reference keeps them.
 */
import { parseDurationMs } from '../../shared/duration.ts';

/** Whole milliseconds, or undefined when `text` is not a duration. */
export function parseServiceDurationMs(text: string): number | undefined {
  const ms = parseDurationMs(text);
  return ms === undefined ? undefined : Math.round(ms);
}
