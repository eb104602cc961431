/**
 * A network fault of the soak as toxiproxy's toxics on the path's proxy (toxiproxy.ts says why
 * toxiproxy): each occurrence adds its toxics under names of its own and its heal removes exactly
 * those, so two faults on one path layer and heal apart.
 *
 * - `latency A±J`: a latency toxic on what the upstream answers (every answer A ms later, ± J uniform);
 * - `bandwidth R`: the answers' throughput capped at R (toxiproxy counts KB/s: R is rounded up to one);
 * - `reset`: every connection reset as soon as data is sent (reset_peer, no delay), new ones included;
 * - `partition`: a blackhole both ways (timeout toxics with no timeout: nothing passes and nothing is
 *   closed, as a cut cable; a refusal would tell the sender at once, a partition does not).
 */
import type { FaultPath, NetworkFaultSpec } from '../../shared/fault-spec.ts';
import type { Toxic, Toxiproxy, ToxiproxyProxy } from './toxiproxy.ts';

/** The toxics one occurrence `id` of `spec` adds. */
export function toxicsOf(spec: NetworkFaultSpec, id: string): Toxic[] {
  switch (spec.action) {
    case 'latency':
      return [
        {
          name: `${id}-latency`,
          type: 'latency',
          stream: 'downstream',
          attributes: { latency: spec.latencyMs ?? 0, jitter: spec.jitterMs ?? 0 },
        },
      ];
    case 'bandwidth':
      return [
        {
          name: `${id}-bandwidth`,
          type: 'bandwidth',
          stream: 'downstream',
          attributes: { rate: Math.max(1, Math.ceil((spec.bytesPerSecond ?? 1024) / 1024)) },
        },
      ];
    case 'reset':
      return [{ name: `${id}-reset`, type: 'reset_peer', stream: 'upstream', attributes: { timeout: 0 } }];
    case 'partition':
      return [
        { name: `${id}-partition-up`, type: 'timeout', stream: 'upstream', attributes: { timeout: 0 } },
        { name: `${id}-partition-down`, type: 'timeout', stream: 'downstream', attributes: { timeout: 0 } },
      ];
  }
}

/**
 * The soak's proxies by path, and the faults on them. A path may have several proxies (the target's
 * areas on ports of their own): a fault on the path is on each.
 */
export class NetworkFaults {
  readonly #server: Toxiproxy;
  readonly #proxies: ReadonlyMap<FaultPath, readonly ToxiproxyProxy[]>;

  constructor(server: Toxiproxy, proxies: ReadonlyMap<FaultPath, readonly ToxiproxyProxy[]>) {
    this.#server = server;
    this.#proxies = proxies;
  }

  #onPath(path: FaultPath): readonly ToxiproxyProxy[] {
    const proxies = this.#proxies.get(path) ?? [];
    if (proxies.length === 0) throw new Error(`no proxy on the ${path} path`);
    return proxies;
  }

  /** Puts occurrence `id` of `spec` on its path. */
  async inject(spec: NetworkFaultSpec, id: string): Promise<void> {
    for (const proxy of this.#onPath(spec.path)) {
      for (const toxic of toxicsOf(spec, id)) await this.#server.addToxic(proxy.name, toxic);
    }
  }

  /** Removes what occurrence `id` added. */
  async heal(spec: NetworkFaultSpec, id: string): Promise<void> {
    for (const proxy of this.#onPath(spec.path)) {
      for (const toxic of toxicsOf(spec, id)) await this.#server.removeToxic(proxy.name, toxic.name);
    }
  }

  /** Removes every toxic left (the run's end, an abort). */
  healAll(): Promise<void> {
    return this.#server.reset();
  }
}
