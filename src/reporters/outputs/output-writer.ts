/** What an output kind's module gives back: a writer of the run's records at its destination. */
import type { LiveRecord } from './live-records.ts';

/** What an output kind writes to: records in, never a throw, never a wait on the caller's thread. */
export interface OutputWriter {
  write(records: readonly LiveRecord[]): void;
  /** Units (lines, batches) written and dropped so far. */
  totals(): { readonly written: number; readonly dropped: number; readonly error?: string };
  /** Writes what is queued within `withinMs`, then lets the destination go; what is left is dropped. */
  close(withinMs: number): Promise<{ readonly written: number; readonly dropped: number; readonly error?: string }>;
  /** What the totals count: `lines`, `batches`. */
  readonly unit: string;
}
