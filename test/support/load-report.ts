/**
 * The part of a load run's report.json the output tests read back against what an output wrote: each
 * scenario's requests in all and per tag set, checks, thresholds, per-second series and messaging
 * accounting. One shape for the NDJSON, Prometheus and OTLP tests (schemas/report.schema.json is the
 * whole of it).
 */
export interface Counts {
  readonly sent: number;
  readonly completed: number;
  readonly failed: number;
  readonly dropped: number;
}

/** A messaging stream's accounting; null where the scenario has no such stream. */
export interface StreamCounts {
  readonly expected: number;
  readonly received: number;
  readonly lost: number;
  readonly duplicated: number;
  readonly unexpected: number;
  /** The distinct keys among the unexpected arrivals. */
  readonly unexpectedKeys?: number;
  readonly latencyMs: { readonly count: number; readonly p99: number };
}

export interface ReportScenario {
  readonly name: string;
  readonly engine: string;
  readonly requests: Counts;
  readonly tags: readonly { readonly tags: Record<string, string>; readonly requests: Counts }[];
  readonly checks: readonly { readonly name: string; readonly passes: number; readonly fails: number }[];
  readonly thresholds: readonly { readonly expression: string; readonly ok: boolean }[];
  readonly series: readonly {
    readonly second: number;
    readonly completed: number;
    readonly p50: number;
    readonly p90: number;
    readonly p99: number;
    readonly max: number;
  }[];
  /** A messaging scenario's accounting, per stream. */
  readonly messaging?: Partial<Record<'delivery' | 'callbacks' | 'failureCallbacks' | 'waiters', StreamCounts | null>>;
}

export interface Report {
  readonly exitCode: number;
  readonly load: { readonly scenarios: readonly ReportScenario[] };
}
