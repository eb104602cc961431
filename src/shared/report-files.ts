/**
 * The report folder and the files in it, with every failure one line. Node's recursive mkdir spins
 * forever on some paths (under /proc it keeps retrying ENOENT), so the folder is made one level at a
 * time, from the nearest existing ancestor down, each step a plain mkdir that fails for good.
 */
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { harnessError } from './errors.ts';

function reason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'ENOTDIR') return 'a part of the path is a file';
  if (code === 'EISDIR') return 'is a directory';
  if (code === 'EROFS') return 'read-only file system';
  if (code === 'ENOENT') return 'no folder can be made there';
  if (code === 'ENOSPC') return 'no space left';
  return code ?? String(error);
}

/** Creates `path` and its missing parents; resolves to the absolute path. */
export async function makeReportDir(path: string, label = 'report folder'): Promise<string> {
  const absolute = resolve(path);
  const missing: string[] = [];
  let current = absolute;
  for (;;) {
    const found = await stat(current).catch(() => undefined);
    if (found?.isDirectory()) break;
    if (found) throw harnessError('SVC_USAGE', `cannot create the ${label} ${absolute}: ${current} is a file`);
    const parent = dirname(current);
    if (parent === current) break;
    missing.unshift(current);
    current = parent;
  }
  for (const folder of missing) {
    await mkdir(folder).catch((error: unknown) => {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return;
      throw harnessError('SVC_USAGE', `cannot create the ${label} ${absolute}: ${reason(error)}`);
    });
  }
  return absolute;
}

/** Writes one report file; a failure is one usage line naming the file. */
export async function writeReportFile(path: string, text: string): Promise<void> {
  await writeFile(path, text).catch((error: unknown) => {
    throw harnessError('SVC_USAGE', `cannot write the report file ${path}: ${reason(error)}`);
  });
}

/** `reports/<UTC timestamp>/`, relative to the working directory: a run's folder when none is given. */
export function defaultReportDir(now: Date): string {
  return join(
    'reports',
    now
      .toISOString()
      .replace(/:/g, '-')
      .replace(/\.\d+Z$/, 'Z'),
  );
}
