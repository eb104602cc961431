/**
 * When a failed attempt is tried again. The real service waits about min(1 day, e^(2.5·n)) seconds
 * before retry n; tests set a short base instead (`--retry-backoff 20ms`: 20, 40, 80 ms, …, at most
 * a day), so retries and failure callbacks arrive within a test's time.
 */

export type RetryBackoff = { readonly kind: 'real' } | { readonly kind: 'base'; readonly ms: number };

const dayMs = 86_400_000;

/** Milliseconds to wait before retry `n` (1 for the first retry). */
export function backoffMs(backoff: RetryBackoff, n: number): number {
  if (backoff.kind === 'real') return Math.min(dayMs, Math.round(Math.exp(2.5 * n) * 1000));
  return Math.min(dayMs, backoff.ms * 2 ** Math.max(0, n - 1));
}
