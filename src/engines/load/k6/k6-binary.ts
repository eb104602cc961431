/**
 * Finding k6: `K6_BINARY`, else `k6` on PATH, else the pinned release with the harness's extension
 * (k6-extension.ts) built once from the Go module proxy into a cache that later runs reuse, else a stock
 * build of the pinned release cached before (its VUs read answers as k6/http does: answer-reading.ts),
 * else one line with the ways to get it. Every binary's
 * version is checked first: the harness hands k6 a TypeScript entry, which k6 runs as it is only
 * from v1.0 on (v0.57–v0.x needed `--compatibility-mode=experimental_enhanced`).
 * The build is go-tool.ts's (a throwaway module; one to three minutes, most of it downloading modules
 * on a first build).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { harnessError, oneLine } from '../../../shared/errors.ts';
import { buildGoTool, cacheDir, goBinary, onPath } from '../../../shared/go-tool.ts';
import { extendedK6Tool, hasExtension } from './k6-extension.ts';

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
  /**
   * `k6 version` lists the harness's extension (k6/x/svc-harness): its VUs read an answer only up to
   * the cap. Without it, the script reads as k6/http does (answer-reading.ts).
   */
  readonly boundedReads: boolean;
}

export interface FindK6Options {
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Build the pinned release when no k6 is found and Go is present. @default true */
  readonly build?: boolean;
  /** Told before a build starts (it takes minutes). */
  readonly log?: (line: string) => void;
}

/** Where a stock build of the pinned release was cached (before the extension; still used when found). */
export const cachedK6Path = (env: Readonly<Record<string, string | undefined>> = process.env) =>
  join(cacheDir(env), 'k6', `v${pinnedK6}`, 'k6');

/** Where the pinned release with the harness's extension is built. */
export const cachedExtendedK6Path = (env: Readonly<Record<string, string | undefined>> = process.env) =>
  extendedK6Tool(pinnedK6, env).target;

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

async function versionOf(path: string, where: string): Promise<{ version: string; boundedReads: boolean }> {
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
  return { version, boundedReads: hasExtension(output) };
}

/** Builds the pinned k6 with the harness's extension into the cache (go-tool.ts). */
export async function buildK6(
  env: Readonly<Record<string, string | undefined>> = process.env,
  log: (line: string) => void = () => {},
): Promise<string> {
  const go = goBinary(env);
  if (!go) throw harnessError('SVC_K6_UNAVAILABLE', noK6Line());
  const tool = extendedK6Tool(pinnedK6, env);
  log(
    `k6: building k6 v${pinnedK6} with the harness's extension from the Go module proxy into ${tool.target} (once; a first build takes minutes)`,
  );
  try {
    return await buildGoTool(tool, go, env);
  } catch (error) {
    throw harnessError('SVC_K6_UNAVAILABLE', `k6: building v${pinnedK6} with ${go} failed: ${oneLine(error)}`);
  }
}

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
    return { path: env.K6_BINARY, ...(await versionOf(env.K6_BINARY, 'K6_BINARY')), source: 'K6_BINARY' };
  }
  const fromPath = onPath('k6', env);
  if (fromPath) return { path: fromPath, ...(await versionOf(fromPath, 'PATH')), source: 'PATH' };
  const extended = cachedExtendedK6Path(env);
  if (existsSync(extended)) return { path: extended, ...(await versionOf(extended, 'the cache')), source: 'cache' };
  const canBuild = options.build !== false && goBinary(env) !== undefined;
  // A stock build from before the extension: used only where no build with the extension can be made.
  const stock = cachedK6Path(env);
  if (!canBuild && existsSync(stock)) return { path: stock, ...(await versionOf(stock, 'the cache')), source: 'cache' };
  if (!canBuild) throw harnessError('SVC_K6_UNAVAILABLE', noK6Line());
  const built = await buildK6(env, options.log);
  return { path: built, ...(await versionOf(built, 'the build')), source: 'built' };
}
