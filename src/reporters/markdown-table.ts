/** Markdown tables for summary.md: cells that cannot break out of their row. */

/** A table cell: no pipes or line breaks may escape it. */
export function cell(text: string): string {
  return text.replace(/\r?\n/g, ' ').replaceAll('|', '\\|');
}

function row(cells: readonly (string | number)[]): string {
  return `| ${cells.map((value) => cell(String(value))).join(' | ')} |`;
}

export function table(header: readonly string[], rows: readonly (readonly (string | number)[])[]): string[] {
  return [row(header), row(header.map(() => '---')), ...rows.map(row)];
}
