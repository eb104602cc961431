/** `--sink-host`, `--sink-port`, `--sink-url` and `--sink-wait` into the sink's settings, each checked to one usage line. */
import { harnessError } from '../shared/errors.ts';
import type { SinkSettings } from '../target/target.ts';
import type { ParsedValues } from './parsed-values.ts';

const durationPattern = /^(\d+(?:\.\d+)?)(ms|s|m)$/;
const unitSeconds: Readonly<Record<string, number>> = { ms: 0.001, s: 1, m: 60 };

export function sinkSettings(values: ParsedValues): SinkSettings | undefined {
  const host = values['sink-host'] as string | undefined;
  const port = values['sink-port'] as number | undefined;
  const url = values['sink-url'] as string | undefined;
  const wait = values['sink-wait'] as string | undefined;
  if (port !== undefined && port > 65535)
    throw harnessError('SVC_USAGE', `--sink-port ${port} is not a port (0-65535)`);
  if (url !== undefined && !/^https?:\/\/[^\s/]+\/?$/.test(url)) {
    throw harnessError('SVC_USAGE', `--sink-url takes a base URL without a path (http://host:port), not "${url}"`);
  }
  let waitSeconds: number | undefined;
  if (wait !== undefined) {
    const match = durationPattern.exec(wait.trim());
    waitSeconds = match ? Number(match[1]) * (unitSeconds[match[2] as string] ?? 1) : undefined;
    if (waitSeconds === undefined || waitSeconds <= 0 || waitSeconds > 3600) {
      throw harnessError('SVC_USAGE', `--sink-wait takes a duration up to 1 hour (15s, 2m), not "${wait}"`);
    }
  }
  if (host === undefined && port === undefined && url === undefined && waitSeconds === undefined) return undefined;
  return {
    ...(host !== undefined && { host }),
    ...(port !== undefined && { port }),
    ...(url !== undefined && { url }),
    ...(waitSeconds !== undefined && { waitSeconds }),
  };
}
