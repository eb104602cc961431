/**
 * The one start-up of the sink, for conformance (suite support, through suite-api.ts) and load alike:
 * a target and the command line's sink flags into a started sink. The target gives where it listens
 * and the URL it advertises (`sink`), the header and scheme its signatures use (its dialect's, or what
 * it declares), and its signing keys: those of the target file when it has them, else `GET /v2/keys`
 * on its messaging URL with its token (the real service's endpoint). A caller that reads keys its own
 * way (the conformance adapter) passes `keys`. It sits above src/sink, src/http and src/target, which
 * sit on one row and do not import each other.
 */
import { dispatcherFor, httpRequest } from '../http/http-client.ts';
import { harnessError } from '../shared/errors.ts';
import { type Sink, startSink } from '../sink/sink-server.ts';
import type { SigningKeys } from '../sink/sink-signature.ts';
import { type SinkSettings, signatureSchemeOf, type Target } from '../target/target.ts';

export interface TargetSinkOptions {
  readonly target: Target;
  /** The command line's `--sink-*` flags; each one given wins over the target file's `sink`. */
  readonly flags?: SinkSettings;
  /** How the signing keys are read; default: the target file's, else the target's `GET /v2/keys`. */
  readonly keys?: () => Promise<SigningKeys | undefined>;
  /** Threads when neither the flags nor the target file say: 0 for conformance, `loadSinkThreads` for load. */
  readonly defaultThreads: number;
}

/**
 * Load's default: one worker thread, so the sink verifies and classifies off the thread that sends the
 * load (the node engine's publishers and its own batches share the main thread). bench/sink-throughput.ts
 * on a 2-core machine shared with other work gave 0 threads 0.62-1.09× the plain receiver, 1 thread
 * 0.55-1.16×, 2 threads 0.63-1.36× over several runs: no configuration wins alone by its own rate, so
 * the choice follows where the load engine's work is.
 */
export const loadSinkThreads = 1;

/** The target's sink settings with the flags over them. */
export function sinkSettingsOf(target: Target, flags?: SinkSettings): SinkSettings {
  return { ...target.sink, ...flags };
}

/**
 * The target's signing keys: the target file's, else `GET /v2/keys` (2xx JSON with `current` and
 * `next` strings); undefined when neither has them, and the sink then leaves signatures unchecked.
 */
export function targetSigningKeys(target: Target): () => Promise<SigningKeys | undefined> {
  return async () => {
    const messaging = target.messaging;
    if (messaging === undefined) return undefined;
    if (messaging.signingKeys !== undefined) {
      return { current: messaging.signingKeys.current, next: messaging.signingKeys.next };
    }
    const res = await httpRequest({
      url: `${messaging.url.replace(/\/+$/, '')}/v2/keys`,
      method: 'GET',
      headers: { ...messaging.headers, authorization: `Bearer ${messaging.token}` },
      dispatcher: dispatcherFor(target.tls),
      timeoutMs: 10_000,
      maxAnswerBytes: 64 * 1024,
    });
    if (res.status < 200 || res.status > 299) return undefined;
    let keys: unknown;
    try {
      keys = JSON.parse(res.body.toString('utf8'));
    } catch {
      return undefined;
    }
    if (typeof keys !== 'object' || keys === null) return undefined;
    const { current, next } = keys as Record<string, unknown>;
    return typeof current === 'string' && typeof next === 'string' ? { current, next } : undefined;
  };
}

/** Starts the target's sink; a port already taken is one clear line (SVC_CONFIG), never a stack trace. */
export async function startTargetSink(options: TargetSinkOptions): Promise<Sink> {
  const settings = sinkSettingsOf(options.target, options.flags);
  const signature = signatureSchemeOf(options.target);
  try {
    return await startSink({
      ...(settings.host !== undefined && { host: settings.host }),
      ...(settings.port !== undefined && { port: settings.port }),
      ...(settings.url !== undefined && { publicUrl: settings.url }),
      signatureHeader: signature.header,
      scheme: signature.scheme,
      keys: options.keys ?? targetSigningKeys(options.target),
      threads: settings.threads ?? options.defaultThreads,
    });
  } catch (error) {
    const where = `${settings.host ?? '127.0.0.1'}:${settings.port ?? 0}`;
    throw harnessError(
      'SVC_CONFIG',
      `the sink could not start on ${where}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
