/**
 * The live outputs by kind (`--out KIND=DESTINATION`, repeatable): each kind opens a writer of the
 * run's records (live-records.ts) at its destination: NDJSON, Prometheus remote write, OTLP. A new
 * kind is one entry here and a module beside this one that maps the same records to its wire format.
 */
import { openJsonOutput } from './json-output.ts';
import { openOtlpOutput } from './otlp-output.ts';
import type { OutputWriter } from './output-writer.ts';
import { openPrometheusRwOutput } from './prometheus-rw-output.ts';
import type { SendIntervals } from './send-intervals.ts';

export const outputKinds = ['json', 'prometheus-rw', 'otlp'] as const;
export type OutputKind = (typeof outputKinds)[number];

/** Kinds whose destination is a file: a config file's is resolved from the file's folder. */
export const fileOutputKinds: readonly OutputKind[] = ['json'];
/** Kinds whose destination is an http:// or https:// URL: anything else is refused before the run. */
export const urlOutputKinds: readonly OutputKind[] = ['prometheus-rw', 'otlp'];

/**
 * Opens a writer at `destination`, the URL kinds sending at `intervals` (send-intervals.ts); throws
 * when it cannot (the caller says so in one line, and goes on).
 */
export const openOutput: Readonly<Record<OutputKind, (destination: string, intervals: SendIntervals) => OutputWriter>> =
  {
    json: (destination) => openJsonOutput(destination),
    'prometheus-rw': (destination, intervals) =>
      openPrometheusRwOutput(destination, { flushEveryMs: intervals.remoteWriteEveryMs }),
    otlp: (destination, intervals) =>
      openOtlpOutput(destination, {
        exportIntervalMs: intervals.otlpExportIntervalMs,
        exportTimeoutMs: intervals.otlpExportTimeoutMs,
      }),
  };
