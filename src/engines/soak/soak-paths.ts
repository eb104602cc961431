/**
 * The soak's two network paths through toxiproxy, made only when a network fault is asked for: the
 * target path (each distinct host:port of the target's area URLs gets a proxy, and the run's target
 * says the proxy's address instead), and the sink path (a proxy in front of the sink's port, whose
 * address is the URL the implementation is told to call). A run without network faults goes direct.
 */
import { harnessError } from '../../shared/errors.ts';
import type { FaultPath, FaultSpec } from '../../shared/fault-spec.ts';
import { findFreePort } from '../../shared/free-port.ts';
import type { SinkSettings, Target } from '../../target/target.ts';
import { NetworkFaults } from './network-faults.ts';
import { findToxiproxy, Toxiproxy, type ToxiproxyProxy } from './toxiproxy.ts';

export interface SoakPaths {
  /** The target the load runs against (through the target path's proxies when there are any). */
  readonly target: Target;
  /** The sink the load starts (behind the sink path's proxy when there is one). */
  readonly sink: SinkSettings | undefined;
  readonly network?: NetworkFaults;
  stop(): Promise<void>;
}

const areas = ['kv', 'messaging', 'management'] as const;

/** `http://host:port/…` with its host and port replaced by `listen` (`127.0.0.1:PORT`). */
function through(url: string, listen: string): string {
  const parsed = new URL(url);
  parsed.host = listen;
  return parsed.toString().replace(/\/$/, url.endsWith('/') ? '/' : '');
}

const hostPort = (url: string) => {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || (parsed.protocol === 'https:' ? '443' : '80')}`;
};

/** The paths the faults need, started; none needed: the target and sink as they are. */
export async function startSoakPaths(
  specs: readonly FaultSpec[],
  target: Target,
  sink: SinkSettings | undefined,
  seed: number,
  log: (line: string) => void,
): Promise<SoakPaths> {
  const wanted = new Set(specs.flatMap((spec) => ('path' in spec ? [spec.path] : [])));
  if (wanted.size === 0) return { target, sink, stop: async () => {} };
  if (wanted.has('sink') && sink?.url !== undefined) {
    throw harnessError(
      'SVC_USAGE',
      'soak: a fault on the sink path puts a proxy in front of the sink, so --sink-url cannot be given too',
    );
  }
  const server = await Toxiproxy.start(await findToxiproxy(process.env, log), seed);
  try {
    const proxies = new Map<FaultPath, ToxiproxyProxy[]>();
    let routed: Target = target;
    if (wanted.has('target')) {
      const byOrigin = new Map<string, ToxiproxyProxy>();
      const list: ToxiproxyProxy[] = [];
      for (const area of areas) {
        const url = target[area]?.url;
        if (url === undefined) continue;
        const origin = hostPort(url);
        let proxy = byOrigin.get(origin);
        if (proxy === undefined) {
          proxy = await server.proxy(`target-${byOrigin.size + 1}`, origin);
          byOrigin.set(origin, proxy);
          list.push(proxy);
        }
        const entry = target[area];
        if (entry !== undefined) routed = { ...routed, [area]: { ...entry, url: through(url, proxy.listen) } };
      }
      proxies.set('target', list);
    }
    let routedSink = sink;
    if (wanted.has('sink')) {
      const port = sink?.port !== undefined && sink.port !== 0 ? sink.port : await findFreePort();
      const proxy = await server.proxy('sink', `127.0.0.1:${port}`);
      proxies.set('sink', [proxy]);
      routedSink = { ...sink, host: '127.0.0.1', port, url: `http://${proxy.listen}` };
    }
    return {
      target: routed,
      sink: routedSink,
      network: new NetworkFaults(server, proxies),
      stop: () => server.stop(),
    };
  } catch (error) {
    await server.stop();
    throw error;
  }
}
