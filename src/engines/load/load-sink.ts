/**
 * The sink a load run starts for its messaging scenarios, once per run, through the one start-up
 * both engines share (`src/target-sink/start-target-sink.ts`: where the target's `sink` says, else on
 * loopback; its signature scheme and keys; worker threads of its own). A target without `sink`
 * settings is given a loopback sink only when its messaging area is on loopback too: a remote target
 * could not call it back.
 */
import type { Sink } from '../../sink/sink-server.ts';
import type { SinkSettings, Target } from '../../target/target.ts';
import { loadSinkThreads, sinkSettingsOf, startTargetSink } from '../../target-sink/start-target-sink.ts';

const loopbackHosts = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/**
 * Why the target's messaging scenarios cannot run, or undefined when they can: a messaging area, and
 * a sink it can call, which is one with a URL or a host of its own (the target file's `sink`, the
 * flags), or any sink when the messaging area is on loopback too.
 */
export function sinkLacking(target: Target, flags?: SinkSettings): string | undefined {
  if (!target.messaging) return 'the target has no messaging area, which the scenario loads';
  const settings = sinkSettingsOf(target, flags);
  if (settings.url !== undefined || (settings.host !== undefined && !loopbackHosts.has(settings.host))) {
    return undefined;
  }
  const host = new URL(target.messaging.url).hostname;
  return loopbackHosts.has(host)
    ? undefined
    : `the target has no sink (sink.url in the target file, or --sink-url): its messaging area at ${host} cannot call back a sink on loopback`;
}

/** `flags`: the command line's `--sink-*`, over the target file's `sink`. */
export function startLoadSink(target: Target, flags?: SinkSettings): Promise<Sink> {
  return startTargetSink({ target, ...(flags && { flags }), defaultThreads: loadSinkThreads });
}
