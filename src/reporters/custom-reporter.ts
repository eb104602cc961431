/**
 * A reporter of the user's own, by path (`--reporter ./my-reporter.ts`, as vitest takes one): loaded
 * as the user's scenarios and config files are (src/shared/user-module.ts: TypeScript or JavaScript,
 * in an ES module or CommonJS project). Its default export is a `Reporter`, or a function or class
 * that makes one; anything else is one line before the run starts.
 */
import { basename, resolve } from 'node:path';
import { liveHooks, type Reporter } from '../results/reporter.ts';
import { harnessError } from '../shared/errors.ts';
import { importUserModule } from '../shared/user-module.ts';

/** The hooks a reporter may have (the `Reporter` interface's): the live ones, then the run's end. */
export const reporterHooks = [...liveHooks, 'onRunEnd'] as const satisfies readonly (keyof Reporter)[];

const isClass = (value: (...args: unknown[]) => unknown) => /^class[\s{]/.test(Function.prototype.toString.call(value));

/** The reporter of the module at `path` (relative: to the working folder). */
export async function loadReporterModule(path: string, cwd = process.cwd()): Promise<Reporter> {
  const file = resolve(cwd, path);
  const module = await importUserModule(file, 'reporter');
  // A CommonJS module's `module.exports = …` arrives as the default; its `exports.default`, one level down.
  let made: unknown = module.default;
  if (made !== null && typeof made === 'object' && 'default' in made && !hasHook(made)) made = made.default;
  if (typeof made === 'function') {
    const make = made as (...args: unknown[]) => unknown;
    made = isClass(make) ? new (make as unknown as new () => unknown)() : make();
  }
  if (made === null || typeof made !== 'object' || !hasHook(made)) {
    throw harnessError(
      'SVC_CONFIG',
      `reporter ${path}: its default export is no Reporter: an object with hooks (${reporterHooks.join(', ')}), or a function or class that makes one`,
    );
  }
  const own = made as Partial<Reporter> & Record<string, unknown>;
  for (const hook of reporterHooks) {
    if (own[hook] !== undefined && typeof own[hook] !== 'function') {
      throw harnessError('SVC_CONFIG', `reporter ${path}: its ${hook} is not a function`);
    }
  }
  // The hooks bound to it (a class's methods use `this`), under its own name or its file's.
  const name = typeof own.name === 'string' && own.name !== '' ? own.name : basename(path);
  const reporter: Record<string, unknown> = { name, ...(typeof own.file === 'string' && { file: own.file }) };
  for (const hook of reporterHooks) {
    const method = own[hook];
    if (typeof method === 'function') reporter[hook] = method.bind(own);
  }
  return reporter as unknown as Reporter;
}

function hasHook(value: object): boolean {
  return reporterHooks.some((hook) => typeof (value as Record<string, unknown>)[hook] === 'function');
}
