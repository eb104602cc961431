/**
 * The soak's sampler of memory and CPU (issue 39 item 4): on an interval through the measured load, the
 * resident memory and CPU time of the implementation's process group when the soak started it (read
 * from /proc, process-group.ts: every live member summed) and of the harness's own process
 * (process.memoryUsage().rss, process.cpuUsage(): every thread of it, the sink's workers included).
 * Each sample names its lifetime (the group's id, new after each kill or restart), so the trend can fit
 * one slope across restarts (results/soak-trends.ts). It never throws into the run: a group with no
 * live member (killed, not started again yet) is skipped for that sample, and a read that fails is one
 * sample fewer. The reads are synchronous: a /proc scan takes well under a millisecond per hundred
 * processes, and a sample is then one instant, not spread over the event loop's turns.
 */
import type { ResourceReading } from '../../results/reporter.ts';
import type { ResourceSample } from '../../results/soak-trends.ts';
import { groupUsage, hasProc } from './process-group.ts';

/** The default interval: every 5 s, or 30 samples over a shorter load, never closer than 250 ms. */
export function sampleIntervalMs(loadMs: number): number {
  return Math.max(250, Math.min(5000, Math.floor(loadMs / 30)));
}

export interface ResourceSamples {
  /** Undefined when the soak did not start the implementation (or there is no /proc to read it from). */
  readonly implementation?: readonly ResourceSample[];
  readonly harness: readonly ResourceSample[];
}

export interface ResourceSampler {
  /** Stops sampling and returns what was sampled; a second call returns the same. */
  stop(): ResourceSamples;
}

export interface SamplerOptions {
  /** The implementation's group id now (the managed process's pid); undefined: none to sample. */
  readonly group?: () => number | undefined;
  readonly intervalMs: number;
  /** Time 0 of the samples, performance.now() ms. @default now */
  readonly origin?: number;
  /** Told each sample as it is taken (the live outputs' points), with the cores since its lifetime's last. */
  readonly onSample?: (reading: ResourceReading) => void;
}

/** A sample as a reading: cores from the CPU time and wall time since the same lifetime's previous one. */
function readingOf(
  process: ResourceReading['process'],
  sample: ResourceSample,
  previous?: ResourceSample,
): ResourceReading {
  const sameLife = previous !== undefined && previous.lifetime === sample.lifetime && sample.atS > previous.atS;
  const cores = sameLife ? (sample.cpuS - previous.cpuS) / (sample.atS - previous.atS) : null;
  return {
    process,
    elapsedS: sample.atS,
    rssBytes: sample.rssBytes,
    cpuCores: cores !== null && cores >= 0 ? cores : null,
  };
}

/** Starts sampling now (a first sample at once), every `intervalMs` until stopped. */
export function startResourceSampler(options: SamplerOptions): ResourceSampler {
  const origin = options.origin ?? performance.now();
  const group = hasProc() ? options.group : undefined;
  const implementation: ResourceSample[] = [];
  const harness: ResourceSample[] = [];
  const sample = () => {
    const atS = (performance.now() - origin) / 1000;
    try {
      const cpu = process.cpuUsage();
      const taken = {
        atS,
        rssBytes: process.memoryUsage.rss(),
        cpuS: (cpu.user + cpu.system) / 1e6,
        lifetime: process.pid,
      };
      const previous = harness.at(-1);
      harness.push(taken);
      options.onSample?.(readingOf('harness', taken, previous));
    } catch {
      // One sample fewer.
    }
    try {
      const pgid = group?.();
      const usage = pgid === undefined ? undefined : groupUsage(pgid);
      if (pgid !== undefined && usage !== undefined) {
        const taken = { atS, rssBytes: usage.rssBytes, cpuS: usage.cpuS, lifetime: pgid };
        const previous = implementation.at(-1);
        implementation.push(taken);
        options.onSample?.(readingOf('implementation', taken, previous));
      }
    } catch {
      // One sample fewer: the group went while it was read.
    }
  };
  sample();
  const timer = setInterval(sample, options.intervalMs);
  // A sampler never keeps the harness alive.
  timer.unref();
  let result: ResourceSamples | undefined;
  return {
    stop() {
      if (result === undefined) {
        clearInterval(timer);
        result = { ...(group !== undefined && { implementation }), harness };
      }
      return result;
    },
  };
}
