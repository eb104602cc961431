/**
 * The live outputs by kind (`--out KIND=DESTINATION`, repeatable): each kind opens a writer of the
 * run's records (live-records.ts) at its destination. A new kind (OTLP) is one entry here and a module
 * beside this one that maps the same records to its wire format.
 */
import { openJsonOutput } from './json-output.ts';
import type { OutputWriter } from './output-writer.ts';
import { openPrometheusRwOutput, shownDestination } from './prometheus-rw-output.ts';

export const outputKinds = ['json', 'prometheus-rw'] as const;
export type OutputKind = (typeof outputKinds)[number];

/** Kinds whose destination is a file: a config file's is resolved from the file's folder. */
export const fileOutputKinds: readonly OutputKind[] = ['json'];

/** Kinds whose destination is an http:// or https:// URL: anything else is refused before the run. */
export const urlOutputKinds: readonly OutputKind[] = ['prometheus-rw'];

/** Kinds to come (issue 38), named where an unknown kind is refused. */
export const plannedOutputKinds = ['otlp'] as const;

/** Opens a writer at `destination`; throws when it cannot (the caller says so in one line, and goes on). */
export const openOutput: Readonly<Record<OutputKind, (destination: string) => OutputWriter>> = {
  json: openJsonOutput,
  'prometheus-rw': (destination) => openPrometheusRwOutput(destination),
};

/** A destination as a line may show it: a URL's credentials masked. */
export const showDestination: Readonly<Record<OutputKind, (destination: string) => string>> = {
  json: (path) => path,
  'prometheus-rw': shownDestination,
};
