/**
 * The live outputs by kind (`--out KIND=DESTINATION`, repeatable): each kind opens a writer of the
 * run's records (live-records.ts) at its destination. A new kind (Prometheus remote write, OTLP) is
 * one entry here and a module beside this one that maps the same records to its wire format.
 */
import { openJsonOutput } from './json-output.ts';
import { openOtlpOutput } from './otlp-output.ts';
import type { OutputWriter } from './output-writer.ts';

export const outputKinds = ['json', 'otlp'] as const;
export type OutputKind = (typeof outputKinds)[number];

/** Kinds whose destination is a file: a config file's is resolved from the file's folder. */
export const fileOutputKinds: readonly OutputKind[] = ['json'];
/** Kinds whose destination is an http(s) URL, refused before the run when it is not one. */
export const urlOutputKinds: readonly OutputKind[] = ['otlp'];

/** Kinds to come (issue 38), named where an unknown kind is refused. */
export const plannedOutputKinds = ['prometheus-rw'] as const;

/** Opens a writer at `destination`; throws when it cannot (the caller says so in one line, and goes on). */
export const openOutput: Readonly<Record<OutputKind, (destination: string) => OutputWriter>> = {
  json: openJsonOutput,
  otlp: openOtlpOutput,
};
