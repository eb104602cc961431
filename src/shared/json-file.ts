/**
 * Reading the harness's JSON config files (target files, expectations files): one place decides how
 * a missing, unreadable or non-JSON file and a schema mismatch read as one SVC_CONFIG line.
 */
import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import { harnessError, oneLine } from './errors.ts';

/**
 * The parsed JSON of a file; `label` ("target file") starts the error line. Synchronous: a suite
 * file resolves its target while vitest collects it, and config files are small.
 */
export function readJsonFile(path: string, label: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw harnessError('SVC_CONFIG', `${label} ${path}: ${unreadableReason(error)}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw harnessError('SVC_CONFIG', `${label} ${path}: not JSON (${oneLine(error)})`);
  }
}

function unreadableReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : 'cannot be read';
}

/**
 * A schema's validator, compiled on its first use. Compiling costs 30 to 120 ms a schema, and most
 * commands never read a config file, a target file or an expectations file: compiled at import, the
 * three schemas took a quarter of a one-rule conformance run's start-up CPU, in the CLI and again in
 * the suites' worker.
 */
export function lazyValidator<T>(schema: object, options: Options): () => ValidateFunction<T> {
  let validate: ValidateFunction<T> | undefined;
  return () => {
    validate ??= new Ajv(options).compile<T>(schema);
    return validate;
  };
}

/**
 * Ajv's first error as `<where> <message>` (where: the dotted instance path, or "top level"); only the
 * first, so the line stays one line. `explain` may word an error better than Ajv does.
 */
export function schemaProblem(
  errors: readonly ErrorObject[] | null | undefined,
  explain: (error: ErrorObject) => string | undefined = (error) => error.message,
): string {
  const first = errors?.[0];
  const where = first?.instancePath ? first.instancePath.slice(1).replaceAll('/', '.') : 'top level';
  return `${where} ${(first && explain(first)) ?? 'is invalid'}`;
}
