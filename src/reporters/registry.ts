/**
 * Reporters by name (after vitest's `reporters/`): `--reporter` picks them, repeatable; without it,
 * every one below. A new reporter is one entry here and a module beside this one.
 */
import type { Reporter } from '../results/reporter.ts';
import { createConsoleReporter } from './console-output.ts';
import { createHtmlReporter } from './html-report.ts';
import { createJunitReporter } from './junit-xml.ts';
import { createJsonReporter } from './report-json.ts';
import { createMarkdownReporter } from './summary-md.ts';

export const reporterNames = ['console', 'json', 'junit', 'markdown', 'html'] as const;
export type ReporterName = (typeof reporterNames)[number];

/** Where the console reporter writes: progress (stderr) and the summary (stdout). */
export interface ReporterStreams {
  readonly progress: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  readonly summary: NodeJS.WritableStream;
}

const fileReporters: Readonly<Record<Exclude<ReporterName, 'console'>, () => Reporter>> = {
  json: createJsonReporter,
  junit: createJunitReporter,
  markdown: createMarkdownReporter,
  html: createHtmlReporter,
};

/**
 * The reporters of `names`, each once: the file reporters first, so the console's summary, which
 * names their files, comes after they are written.
 */
export function createReporters(
  names: readonly ReporterName[] = reporterNames,
  streams: ReporterStreams = { progress: process.stderr, summary: process.stdout },
): Reporter[] {
  const chosen = new Set(names);
  const files = (Object.keys(fileReporters) as (keyof typeof fileReporters)[])
    .filter((name) => chosen.has(name))
    .map((name) => fileReporters[name]());
  const console = chosen.has('console')
    ? [createConsoleReporter({ ...streams, files: files.flatMap((reporter) => reporter.file ?? []) })]
    : [];
  return [...files, ...console];
}
