/** svc-harness's own version, from package.json: for `--version` and the report's `tool` field. */
import { existsSync, readFileSync } from 'node:fs';

let version: string | undefined;

/**
 * The package's package.json: two folders up in the repository (src/shared/), three in the published
 * package, whose built modules sit under dist/ (scripts/build-package.ts).
 */
function packageJson(): URL {
  const candidates = ['../../package.json', '../../../package.json'].map((path) => new URL(path, import.meta.url));
  return candidates.find((url) => existsSync(url)) ?? (candidates[0] as URL);
}

/** Read on first use, so neither the CLI's start nor importing the report writers touches the disk. */
export function toolVersion(): string {
  version ??= (JSON.parse(readFileSync(packageJson(), 'utf8')) as { version: string }).version;
  return version;
}
