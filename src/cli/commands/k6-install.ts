/**
 * `svc-harness k6 install`: find k6 or build the pinned release with the harness's extension into the
 * cache (CI's way to get k6). The line says whether the k6 found has the extension: without it, answers
 * are read as k6/http reads them (docs/load.md).
 */
import { findK6 } from '../../engines/load/k6/k6-binary.ts';

export async function run(): Promise<number> {
  const k6 = await findK6({ log: (line) => process.stderr.write(`${line}\n`) });
  process.stdout.write(`k6 v${k6.version} ${k6.path} (${k6.source}, ${installNote(k6.boundedReads)})\n`);
  return 0;
}

/** The end of `k6 install`'s line. */
export const installNote = (boundedReads: boolean) =>
  boundedReads ? 'with k6/x/svc-harness: answers read within the cap' : 'without k6/x/svc-harness: answers read whole';
