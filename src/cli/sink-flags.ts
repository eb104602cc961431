/**
 * `--sink-host`, `--sink-port`, `--sink-url`, `--sink-wait` and `--sink-threads` into the sink's
 * settings; parse-argv reads each by its kind, this checks what the kinds do not (the URL's form, the
 * threads' bound), each to one usage line. `--sink-url` may carry a path prefix (a proxy's mount
 * point): every URL handed to the target sits under it.
 */
import { harnessError } from '../shared/errors.ts';
import type { SinkSettings } from '../target/target.ts';

/** A base URL, with a path or not; no query or fragment (the sink's tokens follow the path). */
const baseUrlPattern = /^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/;
export const maxSinkThreads = 64;

/** The sink's flags as parse-argv reads them (the port a whole number to 65535, the wait a duration to 1 hour, in ms). */
export interface SinkFlags {
  readonly 'sink-host'?: string;
  readonly 'sink-port'?: number;
  readonly 'sink-url'?: string;
  readonly 'sink-wait'?: number;
  readonly 'sink-threads'?: number;
}

export function sinkSettings(values: SinkFlags): SinkSettings | undefined {
  const { 'sink-host': host, 'sink-port': port, 'sink-url': url, 'sink-threads': threads } = values;
  const waitSeconds = values['sink-wait'] === undefined ? undefined : values['sink-wait'] / 1000;
  if (url !== undefined && !(baseUrlPattern.test(url) && URL.canParse(url))) {
    throw harnessError(
      'SVC_USAGE',
      `--sink-url takes a base URL, with a path prefix or not (http://host:port, https://tunnel.example/h/sink), and no query, not "${url}"`,
    );
  }
  if (threads !== undefined && (threads < 0 || threads > maxSinkThreads)) {
    throw harnessError('SVC_USAGE', `--sink-threads takes 0 to ${maxSinkThreads} worker threads, not ${threads}`);
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
