/**
 * Every suite's cases: each conformance/<area>/*.cases.ts, found by reading the folders (never a
 * hand-kept list) and imported; a file exports `cases = defineCases([...])`.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { harnessError, oneLine } from '../../shared/errors.ts';
import { sourceFile } from '../../shared/source-files.ts';
import type { ConformanceCase } from '../../suite-kit/conformance-case.ts';
import { targetAreas } from '../../target/areas.ts';
import type { TargetArea } from '../../target/target.ts';
import { repoRoot } from './repo-paths.ts';

export interface CaseFile {
  readonly area: TargetArea;
  /** Relative to the repository: `conformance/kv/pipeline.cases.ts`. */
  readonly file: string;
  readonly cases: readonly ConformanceCase[];
}

function isCase(value: unknown): value is ConformanceCase {
  if (typeof value !== 'object' || value === null) return false;
  const item = value as Record<string, unknown>;
  return typeof item.id === 'string' && Array.isArray(item.rules) && typeof item.run === 'function';
}

async function listCaseFiles(root: string, area: TargetArea): Promise<string[]> {
  try {
    return (await readdir(join(root, 'conformance', area)))
      .filter((name) => name.endsWith(sourceFile('.cases')))
      .sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/**
 * The case files of the given areas (default: all), in area then file-name order. `root` holds
 * conformance/ (default: the repository; the engine's tests point it at a fixture suite).
 */
export async function loadCaseFiles(
  areas: readonly TargetArea[] = targetAreas,
  root: string = repoRoot,
): Promise<CaseFile[]> {
  const files: CaseFile[] = [];
  for (const area of areas) {
    for (const name of await listCaseFiles(root, area)) {
      const file = `conformance/${area}/${name}`;
      let module: Record<string, unknown>;
      try {
        module = (await import(pathToFileURL(join(root, 'conformance', area, name)).href)) as Record<string, unknown>;
      } catch (error) {
        throw harnessError('SVC_INTERNAL', `suite file ${file} cannot be loaded: ${oneLine(error)}`, error);
      }
      const cases = module.cases;
      if (!Array.isArray(cases) || !cases.every(isCase)) {
        throw harnessError('SVC_INTERNAL', `suite file ${file} does not export "cases = defineCases([...])"`);
      }
      files.push({ area, file, cases });
    }
  }
  return files;
}
