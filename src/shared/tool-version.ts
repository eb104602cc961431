/** svc-harness's own version, from package.json: for `--version` and the report's `tool` field. */
import { readFileSync } from 'node:fs';

let version: string | undefined;

/** Read on first use, so neither the CLI's start nor importing the report writers touches the disk. */
export function toolVersion(): string {
  version ??= (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string })
    .version;
  return version;
}
