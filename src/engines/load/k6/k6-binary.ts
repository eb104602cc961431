/**
 * Finding k6: `K6_BINARY`, else `k6` on PATH, else the pinned release built once from the Go module
 * proxy into a cache that later runs reuse, else one line with the ways to get it. Every binary's
 * version is checked first: the harness hands k6 a TypeScript entry, which k6 runs as it is only
 * from v1.0 on (v0.57–v0.x needed `--compatibility-mode=experimental_enhanced`).
 *
 * Why a throwaway module and not `go install go.k6.io/k6/v2@v2.2.0`: measured on these machines,
 * `go install` looks the module up for deprecation notices, falls through to a direct fetch that is
 * not reachable and fails, while `go build` inside a module that requires k6 builds in one to three
 * minutes (most of it downloading modules on a first build).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { harnessError, oneLine } from '../../../shared/errors.ts';

const run = promisify(execFile);

/** The release the harness builds when it finds no k6. */
export const pinnedK6 = '2.2.0';
/** The oldest k6 that runs the harness's TypeScript entry without flags. */
export const minimumK6 = '1.0.0';

export interface K6Binary {
  readonly path: string;
  readonly version: string;
  /** Where it was found: `K6_BINARY`, PATH, the cache, or a build just now. */
  readonly source: 'K6_BINARY' | 'PATH' | 'cache' | 'built';
}

export interface FindK6Options {
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Build the pinned release when no k6 is found and Go is present. @default true */
  readonly build?: boolean;
  /** Told before a build starts (it takes minutes). */
  readonly log?: (line: string) => void;
}

/** `$SVC_HARNESS_CACHE`, else `$XDG_CACHE_HOME/svc-harness`, else `~/.cache/svc-harness`. */
export function cacheDir(env: Readonly<Record<string, string | undefined>> = process.env): string {
  if (env.SVC_HARNESS_CACHE) return env.SVC_HARNESS_CACHE;
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'svc-harness');
}

export const cachedK6Path = (env: Readonly<Record<string, string | undefined>> = process.env) =>
  join(cacheDir(env), 'k6', `v${pinnedK6}`, 'k6');

/** `k6 v2.2.0 (go1.26.8, linux/amd64)` → `2.2.0`; undefined for anything else. */
export function parseK6Version(output: string): string | undefined {
  return /\bk6 v(\d+\.\d+\.\d+)/.exec(output)?.[1];
}

/** a < b by major, minor, patch. */
export function olderThan(a: string, b: string): boolean {
  const [x, y] = [a, b].map((text) => text.split('.').map(Number));
  for (let index = 0; index < 3; index++) {
    const left = x?.[index] ?? 0;
    const right = y?.[index] ?? 0;
    if (left !== right) return left < right;
  }
  return false;
}

async function versionOf(path: string, where: string): Promise<string> {
  let output: string;
  try {
    output = (await run(path, ['version'], { timeout: 15_000 })).stdout;
  } catch (error) {
    throw harnessError('SVC_K6_UNAVAILABLE', `k6 from ${where} (${path}) does not run: ${oneLine(error)}`);
  }
  const version = parseK6Version(output);
  if (version === undefined) {
    throw harnessError(
      'SVC_K6_UNAVAILABLE',
      `k6 from ${where} (${path}) printed no version "k6 vX.Y.Z" (got ${JSON.stringify(output.trim().slice(0, 80))})`,
    );
  }
  if (olderThan(version, minimumK6)) {
    throw harnessError(
      'SVC_K6_UNAVAILABLE',
      `k6 from ${where} is v${version}; the harness needs v${minimumK6} or newer (it runs TypeScript without flags from v1.0); unset it to let the harness build v${pinnedK6}`,
    );
  }
  return version;
}

function onPath(name: string, env: Readonly<Record<string, string | undefined>>): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

function goBinary(env: Readonly<Record<string, string | undefined>>): string | undefined {
  return onPath('go', env) ?? (existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : undefined);
}

/** Builds the pinned k6 into the cache: a module of its own in a temporary folder, then a rename. */
export async function buildK6(
  env: Readonly<Record<string, string | undefined>> = process.env,
  log: (line: string) => void = () => {},
): Promise<string> {
  const go = goBinary(env);
  if (!go) throw harnessError('SVC_K6_UNAVAILABLE', noK6Line());
  const target = cachedK6Path(env);
  await mkdir(join(target, '..'), { recursive: true });
  const module = await mkdtemp(join(tmpdir(), 'svc-harness-k6-build-'));
  log(`k6: building k6 v${pinnedK6} from the Go module proxy into ${target} (once; a first build takes minutes)`);
  try {
    await writeFile(
      join(module, 'go.mod'),
      `module svcharness/k6build\n\ngo 1.24\n\nrequire go.k6.io/k6/v2 v${pinnedK6}\n`,
    );
    // The blank import keeps the requirement when go resolves the module graph.
    await writeFile(join(module, 'tools.go'), '//go:build tools\n\npackage tools\n\nimport _ "go.k6.io/k6/v2"\n');
    // A unique name, renamed into place: two builds at once both succeed, and nobody runs half a file.
    const partial = `${target}.${process.pid}.partial`;
    await run(go, ['build', '-o', partial, 'go.k6.io/k6/v2'], {
      cwd: module,
      env: { ...env, GOFLAGS: '-mod=mod', GOTOOLCHAIN: env.GOTOOLCHAIN ?? 'local' },
      timeout: 15 * 60_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    await rename(partial, target);
    return target;
  } catch (error) {
    if (isHarnessErrorLike(error)) throw error;
    const stderr = typeof error === 'object' && error !== null && 'stderr' in error ? String(error.stderr) : '';
    const last = stderr.trim().split('\n').pop() ?? oneLine(error);
    throw harnessError('SVC_K6_UNAVAILABLE', `k6: building v${pinnedK6} with ${go} failed: ${last}`);
  } finally {
    await rm(module, { recursive: true, force: true });
  }
}

const isHarnessErrorLike = (error: unknown) =>
  typeof error === 'object' &&
  error !== null &&
  'code' in error &&
  typeof error.code === 'string' &&
  error.code.startsWith('SVC_');

function noK6Line(): string {
  return `no k6: set K6_BINARY, put k6 (v${minimumK6} or newer) on PATH, install Go so the harness can build v${pinnedK6}, or run \`npx svc-harness k6 install\` where Go is`;
}

/** The k6 to run, found or built, with its version checked. */
export async function findK6(options: FindK6Options = {}): Promise<K6Binary> {
  const env = options.env ?? process.env;
  if (env.K6_BINARY) {
    if (!existsSync(env.K6_BINARY)) {
      throw harnessError('SVC_K6_UNAVAILABLE', `K6_BINARY names ${env.K6_BINARY}, which does not exist`);
    }
    return { path: env.K6_BINARY, version: await versionOf(env.K6_BINARY, 'K6_BINARY'), source: 'K6_BINARY' };
  }
  const fromPath = onPath('k6', env);
  if (fromPath) return { path: fromPath, version: await versionOf(fromPath, 'PATH'), source: 'PATH' };
  const cached = cachedK6Path(env);
  if (existsSync(cached)) return { path: cached, version: await versionOf(cached, 'the cache'), source: 'cache' };
  if (options.build === false || !goBinary(env)) throw harnessError('SVC_K6_UNAVAILABLE', noK6Line());
  const built = await buildK6(env, options.log);
  return { path: built, version: await versionOf(built, 'the build'), source: 'built' };
}
