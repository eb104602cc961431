/**
 * A user's own module (a scenario, `svc-harness.config.ts`) loaded in any project: ESM or CommonJS,
 * `.ts`, `.mts`, `.cts`, `.js`, `.mjs` or `.cjs`, whatever the project's package.json says. A bare
 * `import()` of a `.ts` file follows the nearest package.json's `"type"`, and `npm init -y` writes
 * `"commonjs"`: Node then reads the README's own scenario as CommonJS and fails on its first `import`.
 * So, as vite and vitest load their config files, esbuild compiles the file (and the relative files it
 * imports) to one ES module beside it, packages left as imports resolved from the user's project;
 * that `.mjs` is imported, here and by the worker threads and k6 bundles that load the same module,
 * and removed when the process exits.
 */
import { unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { harnessError, oneLine } from './errors.ts';

/** Files Node imports as they are, whatever package.json says: ES modules and CommonJS by extension. */
const asIs = new Set(['.mjs', '.cjs']);

/** Compiled copies made by this process, by source path: one compilation per file, removed at exit. */
const compiled = new Map<string, Promise<string>>();

/**
 * The file to import for `path`: the file itself when Node reads it the same in every project (`.mjs`,
 * `.cjs`, or a module of the harness's own package under `ownRoot`), else its compiled `.mjs` beside it.
 * `label` ("scenario", "config file") starts the error line of a module that does not compile.
 */
export function importableFile(path: string, label: string, ownRoot?: string): Promise<string> {
  if (asIs.has(extname(path)) || (ownRoot !== undefined && path.startsWith(ownRoot))) return Promise.resolve(path);
  let file = compiled.get(path);
  if (file === undefined) {
    file = compile(path, label);
    compiled.set(path, file);
  }
  return file;
}

/** Imports a user's module as `importableFile` makes it importable; any failure is one SVC_CONFIG line. */
export async function importUserModule(
  path: string,
  label: string,
  ownRoot?: string,
): Promise<Readonly<Record<string, unknown>>> {
  const file = await importableFile(path, label, ownRoot);
  try {
    return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    throw harnessError('SVC_CONFIG', `${label} ${path}: it does not load (${oneLine(error)})`);
  }
}

async function compile(path: string, label: string): Promise<string> {
  const esbuild = await import('esbuild');
  let code: string;
  try {
    const built = await esbuild.build({
      entryPoints: [path],
      bundle: true,
      // Packages stay imports, resolved from the user's project as their own code would resolve them.
      packages: 'external',
      format: 'esm',
      platform: 'node',
      target: 'node22',
      write: false,
      logLevel: 'silent',
      sourcemap: 'inline',
      // A CommonJS module's require() of a package, inside an ES module: Node's own require, from here.
      banner: {
        js: "import { createRequire as __svcHarnessRequire } from 'node:module'; const require = __svcHarnessRequire(import.meta.url);",
      },
    });
    code = built.outputFiles[0]?.text ?? '';
  } catch (error) {
    const first = (error as { errors?: { text: string; location?: { line: number } | null }[] }).errors?.[0];
    const why = first ? `${first.text}${first.location ? ` (line ${first.location.line})` : ''}` : oneLine(error);
    throw harnessError('SVC_CONFIG', `${label} ${path}: it does not compile: ${why}`);
  }
  // Beside the source, so its packages resolve from the same node_modules; a dot file, gone at exit.
  const file = join(dirname(path), `.${basename(path)}.svc-harness-${process.pid}.mjs`);
  try {
    writeFileSync(file, code);
  } catch (error) {
    throw harnessError(
      'SVC_CONFIG',
      `${label} ${path}: cannot write its compiled module beside it (${oneLine(error)})`,
    );
  }
  process.once('exit', () => {
    try {
      unlinkSync(file);
    } catch {
      // Already gone.
    }
  });
  return file;
}
