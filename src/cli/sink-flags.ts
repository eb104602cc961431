/**
 * `--sink-host`, `--sink-port`, `--sink-url`, `--sink-wait` and `--sink-threads` into the sink's
 * settings, each checked to one usage line. `--sink-url` may carry a path prefix (a proxy's mount
 * point): every URL handed to the target sits under it.
 */

import { parseDurationMs } from '../shared/duration.ts';
import { harnessError } from '../shared/errors.ts';
import type { SinkSettings } from '../target/target.ts';
import type { ParsedValues } from './parsed-values.ts';

/** A base URL, with a path or not; no query or fragment (the sink's tokens follow the path). */
const baseUrlPattern = /^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/;
export const maxSinkThreads = 64;

export function sinkSettings(values: ParsedValues): SinkSettings | undefined {
  const host = values['sink-host'] as string | undefined;
  const port = values['sink-port'] as number | undefined;
  const url = values['sink-url'] as string | undefined;
  const wait = values['sink-wait'] as string | undefined;
  const threads = values['sink-threads'] as number | undefined;
  if (port !== undefined && port > 65535)
    throw harnessError('SVC_USAGE', `--sink-port ${port} is not a port (0-65535)`);
  if (url !== undefined && !(baseUrlPattern.test(url) && URL.canParse(url))) {
    throw harnessError(
      'SVC_USAGE',
      `--sink-url takes a base URL, with a path prefix or not (http://host:port, https://tunnel.example/h/sink), and no query, not "${url}"`,
    );
  }
  if (threads !== undefined && (threads < 0 || threads > maxSinkThreads)) {
    throw harnessError('SVC_USAGE', `--sink-threads takes 0 to ${maxSinkThreads} worker threads, not ${threads}`);
  }
  let waitSeconds: number | undefined;
  if (wait !== undefined) {
    const ms = parseDurationMs(wait);
    waitSeconds = ms === undefined ? undefined : ms / 1000;
    if (waitSeconds === undefined || waitSeconds <= 0 || waitSeconds > 3600) {
      throw harnessError('SVC_USAGE', `--sink-wait takes a duration up to 1 hour (15s, 2m, 1m30s, 1h), not "${wait}"`);
    }
  }
  if (
    host === undefined &&
    port === undefined &&
    url === undefined &&
    waitSeconds === undefined &&
    threads === undefined
  ) {
    return undefined;
  }
  return {
    ...(host !== undefined && { host }),
    ...(port !== undefined && { port }),
    ...(url !== undefined && { url }),
    ...(waitSeconds !== undefined && { waitSeconds }),
    ...(threads !== undefined && { threads }),
  };
}
