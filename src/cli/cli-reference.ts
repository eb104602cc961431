/**
 * The command reference page (docs/cli.md), rendered from the same table that drives parsing and
 * --help; a test keeps the page and this rendering in step.
 */
import { type CommandSpec, commandTable, type OptionSpec } from './command-table.ts';
import { describeOption } from './help-text.ts';
import { valuePlaceholder } from './option-spec.ts';

export const referenceStartMarker = '<!-- cli-reference:start (generated from src/cli/command-table.ts) -->';
export const referenceEndMarker = '<!-- cli-reference:end -->';

export function renderCliReference(): string {
  const sections = Object.entries(commandTable).map(([name, spec]: [string, CommandSpec]) => {
    const rows = Object.entries(spec.options).map(
      ([flag, option]) => `| \`--${flag}\`${valueHint(option)} | ${cell(option)} |`,
    );
    return [
      `## \`svc-harness ${name}${spec.positionals ? ` [<${spec.positionals.name}>…]` : ''}\``,
      '',
      `${spec.summary}.`,
      '',
      ...(spec.positionals ? [`\`<${spec.positionals.name}>…\`: ${spec.positionals.description}.`, ''] : []),
      '| option | meaning |',
      '| --- | --- |',
      ...rows,
    ].join('\n');
  });
  return [referenceStartMarker, ...sections.flatMap((section) => ['', section]), '', referenceEndMarker].join('\n');
}

function valueHint(option: OptionSpec): string {
  const value = valuePlaceholder(option);
  return value ? ` \`${value}\`` : '';
}

/** A table cell: the --help description with its pipes escaped for Markdown. */
function cell(option: OptionSpec): string {
  return describeOption(option).replaceAll('|', '\\|');
}

/** Replaces the generated block of the page's text; used by `node scripts/update-cli-reference.ts`. */
export function withCliReference(readme: string): string {
  const start = readme.indexOf(referenceStartMarker);
  const end = readme.indexOf(referenceEndMarker);
  if (start < 0 || end < start) return readme;
  return readme.slice(0, start) + renderCliReference() + readme.slice(end + referenceEndMarker.length);
}
