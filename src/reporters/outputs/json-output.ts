/**
 * `--out json=FILE`: the run's records as NDJSON, one JSON object a line, each line written as the
 * record is made (line-file.ts: a run killed by SIGKILL leaves every complete line readable).
 * docs/outputs.md describes the lines.
 */
import { openLineFile } from './line-file.ts';
import type { LiveRecord } from './live-records.ts';
import type { OutputWriter } from './output-writer.ts';

export function openJsonOutput(path: string): OutputWriter {
  const file = openLineFile(path);
  return {
    unit: 'lines',
    write: (records: readonly LiveRecord[]) => file.write(records.map((record) => JSON.stringify(record))),
    totals: () => file.totals(),
    close: (withinMs) => file.close(withinMs),
  };
}
