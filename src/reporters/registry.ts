/**
 * Reporters by name (after vitest's `reporters/`): `--reporter` picks them, repeatable; without it,
 * every one below. A new reporter is one entry here and a module beside this one.
 */
import type { Reporter } from '../results/reporter.ts';
import { type ConsoleLevel, createConsoleReporter } from './console-output.ts';
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

/** What else the reporters are: how much the console says, and reporters of the user's own. */
export interface ReporterOptions {
  /** @default 'normal' */
  readonly console?: ConsoleLevel;
  /** Reporters of your own, after the file reporters and before the console (which names their files). */
  readonly own?: readonly Reporter[];
}

/**
 * The reporters of `names`, each once: the file reporters first, then `own`, then the console, whose
 * summary names the files the others wrote.
 */
export function createReporters(
  names: readonly ReporterName[] = reporterNames,
  streams: ReporterStreams = { progress: process.stderr, summary: process.stdout },
  options: ReporterOptions = {},
): Reporter[] {
  const chosen = new Set(names);
  const files = (Object.keys(fileReporters) as (keyof typeof fileReporters)[])
    .filter((name) => chosen.has(name))
    .map((name) => fileReporters[name]());
  const own = options.own ?? [];
  const console = chosen.has('console')
    ? [
        createConsoleReporter({
          ...streams,
          files: [...files, ...own].flatMap((reporter) => reporter.file ?? []),
          ...(options.console && { level: options.console }),
        }),
      ]
    : [];
  return [...files, ...own, ...console];
}
