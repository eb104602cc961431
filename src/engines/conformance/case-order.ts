/**
 * The order a run registers its case files and cases in. By default: the files whose cases may all run
 * concurrently first (vitest runs adjacent concurrent describes together, so they form one group), then
 * the rest, each in discovery order. With a seed (issue 35, item 4), a seeded shuffle of the same shape:
 * the two groups in either order, the files within each group and the cases within each file shuffled.
 * Which cases run beside which, and after which, then changes with the seed, while the concurrency the
 * suites rely on stays as it is; two seeds whose verdicts differ show a case that depends on its
 * neighbours. The same seed always gives the same order (mulberry32).
 */
import { seededRandom } from '../../shared/seeded-random.ts';
import type { CaseFile } from './case-registry.ts';

/** A seeded order: a whole number from 0 to 2^32 - 1. */
export interface CaseOrder {
  readonly seed: number;
}

/** Whether `seed` is one a run accepts: a whole number from 0 to 2^32 - 1. */
export function validSeed(seed: number): boolean {
  return Number.isInteger(seed) && seed >= 0 && seed <= 0xffff_ffff;
}

/** Every file's cases may run concurrently: the file is a concurrent describe. */
export function allConcurrent(file: CaseFile): boolean {
  return file.cases.every((item) => item.concurrent === true);
}

/** A Fisher-Yates shuffle drawing from `random`; `items` is left as it is. */
function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let index = out.length - 1; index > 0; index -= 1) {
    const other = Math.floor(random() * (index + 1));
    [out[index], out[other]] = [out[other] as T, out[index] as T];
  }
  return out;
}

/** The files in the order they are registered, each with its cases in the order they run. */
export function orderCaseFiles(files: readonly CaseFile[], order?: CaseOrder): CaseFile[] {
  const concurrent = files.filter(allConcurrent);
  const alone = files.filter((file) => !allConcurrent(file));
  if (order === undefined) return [...concurrent, ...alone];
  const random = seededRandom(order.seed);
  const groups = random() < 0.5 ? [concurrent, alone] : [alone, concurrent];
  return groups.flatMap((group) =>
    shuffled(group, random).map((file) => ({ ...file, cases: shuffled(file.cases, random) })),
  );
}
