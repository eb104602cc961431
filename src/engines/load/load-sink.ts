/**
 * The sink a load run starts for its messaging scenarios, once per run: where the target's `sink`
 * says (else on loopback), verifying signatures under the target's declared scheme with its signing
 * keys (the target file's, else the real service's `GET /v2/keys`), on worker threads of its own so
 * it keeps up with the load. A target without `sink` settings is given a loopback sink only when its
 * messaging area is on loopback too: a remote target could not call it back.
 */
import { dispatcherFor, httpRequest } from '../../http/http-client.ts';
import { type Sink, startSink } from '../../sink/sink-server.ts';
import { type SinkSettings, signatureSchemeOf, type Target } from '../../target/target.ts';

/** Threads of the load's sink: the main thread keeps the engine's own work. */
const loadSinkThreads = 1;

const loopbackHosts = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** Why the target cannot be given a sink, or undefined when it can. */
export function sinkLacking(target: Target, settings: SinkSettings | undefined = target.sink): string | undefined {
  if (!target.messaging) return 'the target has no messaging area, which the scenario loads';
  if (settings !== undefined) return undefined;
  const host = new URL(target.messaging.url).hostname;
  return loopbackHosts.has(host)
    ? undefined
    : `the target has no sink (sink.url in the target file): its messaging area at ${host} cannot call back a sink on loopback`;
}

export async function startLoadSink(target: Target, settings: SinkSettings | undefined = target.sink): Promise<Sink> {
  const messaging = target.messaging;
  const signature = signatureSchemeOf(target);
  return startSink({
    ...(settings?.host !== undefined && { host: settings.host }),
    ...(settings?.port !== undefined && { port: settings.port }),
    ...(settings?.url !== undefined && { publicUrl: settings.url }),
    signatureHeader: signature.header,
    scheme: signature.scheme,
    threads: loadSinkThreads,
    async keys() {
      if (messaging === undefined) return undefined;
      if (messaging.signingKeys) return messaging.signingKeys;
      const answer = await httpRequest({
        url: `${messaging.url.replace(/\/+$/, '')}/v2/keys`,
        method: 'GET',
        headers: { ...messaging.headers, authorization: `Bearer ${messaging.token}` },
        dispatcher: dispatcherFor(target.tls),
      });
      if (answer.status !== 200) return undefined;
      const keys = JSON.parse(answer.body.toString('utf8')) as { current?: unknown; next?: unknown };
      return typeof keys.current === 'string' && typeof keys.next === 'string'
        ? { current: keys.current, next: keys.next }
        : undefined;
    },
  });
}
