/** `svc-harness k6 install`: find k6 or build the pinned release into the cache (CI's way to get k6). */
import { findK6 } from '../../engines/load/k6/k6-binary.ts';

export async function run(): Promise<number> {
  const k6 = await findK6({ log: (line) => process.stderr.write(`${line}\n`) });
  process.stdout.write(`k6 v${k6.version} ${k6.path} (${k6.source})\n`);
  return 0;
}
