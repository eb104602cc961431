/**
 * The one duration grammar of the harness: every flag (`--duration`, `--ramp`, `--timeout`,
 * `--sink-wait`, `serve --retry-backoff`, `--region-latency`) and the reference's duration headers and
 * fields (`Svc-Delay`, `Svc-Timeout`, a waiter's `timeout`) read durations through it, so what one
 * accepts the others accept too.
 *
 * A duration is a bare number of seconds (`30`, `1.5`, as the real service's `Svc-Timeout: 30`), or
 * one or more parts of a number and a unit (`500ms`, `10s`, `2m`, `1h`, `7d`, `1m30s`, `1h30m`), as Go's
 * time.ParseDuration writes them plus the real service's `d`. Parts may come in any order and add up,
 * as Go's do. Surrounding white space is ignored; a sign, an exponent, white space between parts or a
 * unit of its own (`us`, `w`) is not a duration.
 */

const unitMs: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

const bareSeconds = /^\d+(?:\.\d+)?$/;
const parts = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h|d))+$/;
const part = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/g;

/** Milliseconds (not rounded: `0.5ms` is 0.5), or undefined when `text` is not a duration or overflows. */
export function parseDurationMs(text: string): number | undefined {
  const trimmed = text.trim();
  let ms: number;
  if (bareSeconds.test(trimmed)) ms = Number(trimmed) * 1000;
  else if (parts.test(trimmed)) {
    ms = 0;
    for (const [, value, unit] of trimmed.matchAll(part)) ms += Number(value) * (unitMs[unit as string] as number);
  } else return undefined;
  return Number.isFinite(ms) ? ms : undefined;
}

/** How the messages that refuse a duration show the grammar. */
export const durationExamples = '500ms, 10s, 2m, 1h, 1m30s';
