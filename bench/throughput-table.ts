/** Renders the benchmark's rows as a fixed-width text table (a pure function: rows in, text out). */

export interface ThroughputRow {
  readonly label: string;
  /** Redis commands per second through the reference's HTTP interface. */
  readonly referenceOps: number;
  /** HTTP requests per second (equal to referenceOps for single commands). */
  readonly referenceRequests: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Commands per second redis-benchmark measured at the same depth; undefined when it has none. */
  readonly redisOps: number | undefined;
  readonly failures: number;
}

const columns = ['case', 'reference ops/s', 'reference req/s', 'p50 ms', 'p99 ms', 'redis-benchmark ops/s', 'ratio'];

export function renderThroughputTable(rows: readonly ThroughputRow[]): string {
  const body = rows.map((row) => [
    row.label,
    whole(row.referenceOps),
    whole(row.referenceRequests),
    row.p50Ms.toFixed(1),
    row.p99Ms.toFixed(1),
    row.redisOps === undefined ? 'n/a' : whole(row.redisOps),
    row.redisOps === undefined || row.redisOps === 0 ? 'n/a' : (row.referenceOps / row.redisOps).toFixed(3),
  ]);
  const widths = columns.map((title, i) => Math.max(title.length, ...body.map((cells) => cells[i]!.length)));
  const line = (cells: readonly string[]) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  const notes = rows
    .filter((row) => row.failures > 0)
    .map((row) => `  ! ${row.label}: ${row.failures} failed requests (non-2xx, errors or timeouts)`);
  return [line(columns), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line), ...notes].join('\n');
}

function whole(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}
