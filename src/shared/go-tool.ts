/**
 * The tools the harness builds from the Go module proxy (k6 for the k6 engine, toxiproxy for the
 * soak's network faults): a pinned release, built once inside a throwaway module into a cache that
 * later runs reuse, found first on PATH.
 *
 * Why a throwaway module and not `go install module@version`: measured on these machines, `go install`
 * looks the module up for deprecation notices, falls through to a direct fetch that is not reachable and
 * fails, while `go build` inside a module that requires the tool builds (most of a first build is
 * downloading modules).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { oneLine } from './errors.ts';

const run = promisify(execFile);

export type Env = Readonly<Record<string, string | undefined>>;

/** `$SVC_HARNESS_CACHE`, else `$XDG_CACHE_HOME/svc-harness`, else `~/.cache/svc-harness`. */
export function cacheDir(env: Env = process.env): string {
  if (env.SVC_HARNESS_CACHE) return env.SVC_HARNESS_CACHE;
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'svc-harness');
}

/** The first `name` in a folder of `env.PATH`, or undefined. */
export function onPath(name: string, env: Env): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

/** `go` on PATH, else Go's default install folder. */
export function goBinary(env: Env): string | undefined {
  return onPath('go', env) ?? (existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : undefined);
}

/** One pinned Go tool: the module to require and the main package to build. */
export interface GoTool {
  readonly module: string;
  readonly version: string;
  /** The main package (the module itself, or a `cmd/…` folder of it). */
  readonly mainPackage: string;
  /** Where the binary goes. */
  readonly target: string;
  /**
   * Go files of the throwaway module itself (path inside it → text), for a tool the harness composes:
   * k6 with the harness's extension has its own main package (`mainPackage: '.'`) importing a package of
   * the module. Without them, the module holds only a blank import of `mainPackage`.
   */
  readonly files?: Readonly<Record<string, string>>;
}

/** The throwaway module's name: a tool's own packages are imported under it. */
export const toolModule = 'svcharness/toolbuild';

/**
 * Builds `tool` into its target: a module of its own in a temporary folder, then a rename. Throws an
 * Error whose message is the last line Go printed; the caller makes it its own coded line.
 */
export async function buildGoTool(tool: GoTool, go: string, env: Env = process.env): Promise<string> {
  await mkdir(join(tool.target, '..'), { recursive: true });
  const module = await mkdtemp(join(tmpdir(), 'svc-harness-go-build-'));
  try {
    await writeFile(
      join(module, 'go.mod'),
      `module ${toolModule}\n\ngo 1.24\n\nrequire ${tool.module} ${tool.version}\n`,
    );
    if (tool.files) {
      for (const [path, text] of Object.entries(tool.files)) {
        await mkdir(join(module, path, '..'), { recursive: true });
        await writeFile(join(module, path), text);
      }
    } else {
      // The blank import keeps the requirement when go resolves the module graph.
      await writeFile(
        join(module, 'tools.go'),
        `//go:build tools\n\npackage tools\n\nimport _ "${tool.mainPackage}"\n`,
      );
    }
    // A unique name, renamed into place: two builds at once both succeed, and nobody runs half a file.
    const partial = `${tool.target}.${process.pid}.partial`;
    try {
      await run(go, ['build', '-o', partial, tool.mainPackage], {
        cwd: module,
        env: { ...env, GOFLAGS: '-mod=mod', GOTOOLCHAIN: env.GOTOOLCHAIN ?? 'local' },
        timeout: 15 * 60_000,
        maxBuffer: 16 * 1024 * 1024,
      });
    } catch (error) {
      const stderr = typeof error === 'object' && error !== null && 'stderr' in error ? String(error.stderr) : '';
      throw new Error(stderr.trim().split('\n').pop() || oneLine(error));
    }
    await rename(partial, tool.target);
    return tool.target;
  } finally {
    await rm(module, { recursive: true, force: true });
  }
}
