/**
 * `--out prometheus-rw=URL`: the run's metric points sent to a Prometheus remote-write receiver as the
 * run goes (prometheus-series.ts maps them, remote-write.ts encodes them). It never hurts the run:
 *
 * - `write` only maps and queues (no network, no wait); samples go in batches, sealed every second
 *   (`flushEveryMs`, send-intervals.ts) or at `maxBatchSamples`, one request in flight at a time, so
 *   a series' samples reach the receiver in time order, as it requires;
 * - the queue is bounded (`maxQueuedBatches`): behind a slow endpoint the oldest batch waiting is
 *   dropped first. Counters lose nothing by it: each sample is the series' total so far, so the next
 *   batch that arrives carries every increase the dropped one had;
 * - each request has a deadline (`requestTimeoutMs`) on its whole exchange, connecting included: a
 *   refusing, hanging or vanished endpoint costs that batch, which is counted as dropped; no retry, as
 *   the next batch carries the totals anyway;
 * - `close(withinMs)` sends what is left and waits at most that long; what is still unsent is dropped.
 *
 * Credentials in the URL (`https://user:secret@host/api/v1/write`) are sent as basic authentication and
 * never shown: the URL the output is named by has them masked (`withoutCredentials`, shown-url.ts).
 */
import { Agent, request } from 'undici';
import { oneLine } from '../../shared/errors.ts';
import type { LiveRecord } from './live-records.ts';
import type { OutputWriter } from './output-writer.ts';
import { PrometheusSeries, type Sample } from './prometheus-series.ts';
import { encodeWriteRequest, remoteWriteHeaders, type TimeSeries } from './remote-write.ts';
import { defaultSendIntervals } from './send-intervals.ts';
import { withoutCredentials } from './shown-url.ts';

export interface RemoteWriteOptions {
  /** How often the samples queued are sealed into a batch and sent. @default 1000 (send-intervals.ts) */
  readonly flushEveryMs?: number;
  /**
   * A batch is sealed at once when it holds this many samples. Encoding is on the caller's thread:
   * measured here, 2,000 samples of six labels take about 4 ms (protobuf and snappy), a second of a
   * scenario with ten tag sets (about 60 samples) a tenth of a millisecond. @default 2000
   */
  readonly maxBatchSamples?: number;
  /** Batches waiting behind the one in flight; past it the oldest is dropped. @default 10 */
  readonly maxQueuedBatches?: number;
  /** The deadline of one request, from connecting to the answer's end. @default 5000 */
  readonly requestTimeoutMs?: number;
}

interface Batch {
  readonly body: Uint8Array;
}

/** An http or https URL, or the reason it is not one (without its credentials). */
export function remoteWriteUrlProblem(destination: string): string | undefined {
  let url: URL;
  try {
    url = new URL(destination);
  } catch {
    return 'is not a URL (http://HOST:PORT/api/v1/write)';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return `is not an http:// or https:// URL (${url.protocol})`;
  }
  return undefined;
}

export function openPrometheusRwOutput(destination: string, options: RemoteWriteOptions = {}): OutputWriter {
  const problem = remoteWriteUrlProblem(destination);
  if (problem !== undefined) throw new Error(`${withoutCredentials(destination)} ${problem}`);
  const flushEveryMs = options.flushEveryMs ?? defaultSendIntervals.remoteWriteEveryMs;
  const maxBatchSamples = options.maxBatchSamples ?? 2000;
  const maxQueuedBatches = options.maxQueuedBatches ?? 10;
  const requestTimeoutMs = options.requestTimeoutMs ?? 5000;

  const url = new URL(destination);
  const headers: Record<string, string> = { ...remoteWriteHeaders, 'user-agent': 'svc-harness' };
  if (url.username !== '' || url.password !== '') {
    const user = decodeURIComponent(url.username);
    const password = decodeURIComponent(url.password);
    headers.authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    url.username = '';
    url.password = '';
  }
  // The output's own connection pool: closing it ends only this output's sockets.
  const agent = new Agent({ connections: 1, connectTimeout: requestTimeoutMs });
  const series = new PrometheusSeries();
  /** The last timestamp sent per series: the receiver refuses a sample not after its series' last. */
  const lastTimestamp = new Map<string, number>();
  const abort = new AbortController();
  let pending: Sample[] = [];
  const queue: Batch[] = [];
  let inFlight = false;
  let closed = false;
  let written = 0;
  let dropped = 0;
  let error: string | undefined;
  let idle: (() => void) | undefined;

  const fail = (reason: string) => {
    dropped++;
    error ??= reason;
  };

  /** The samples queued as one batch: grouped by series, each series' timestamps strictly rising. */
  const seal = () => {
    if (pending.length === 0) return;
    const bySeries = new Map<string, TimeSeries & { samples: { value: number; timestamp: number }[] }>();
    for (const sample of pending) {
      const timestamp = Math.max(sample.timestampMs, (lastTimestamp.get(sample.key) ?? -1) + 1);
      lastTimestamp.set(sample.key, timestamp);
      const known = bySeries.get(sample.key) ?? { labels: sample.labels, samples: [] };
      bySeries.set(sample.key, known);
      known.samples.push({ value: sample.value, timestamp });
    }
    pending = [];
    let body: Uint8Array;
    try {
      body = encodeWriteRequest([...bySeries.values()]);
    } catch (cause) {
      fail(`not encoded: ${oneLineOf(cause)}`);
      return;
    }
    queue.push({ body });
    // Behind a slow endpoint, the oldest waiting goes: the newest carries the counters' totals.
    while (queue.length > maxQueuedBatches) {
      queue.shift();
      fail('the queue was full: the endpoint is slower than the run');
    }
    pump();
  };

  const pump = () => {
    const batch = queue.shift();
    if (batch === undefined || inFlight) {
      if (batch !== undefined) queue.unshift(batch);
      if (!inFlight && queue.length === 0) idle?.();
      return;
    }
    inFlight = true;
    void send(batch).then((outcome) => {
      inFlight = false;
      if (closed) return;
      if (outcome === undefined) written++;
      else fail(outcome);
      pump();
    });
  };

  /** One request: undefined when the receiver took it, else why not (one line, no credentials). */
  const send = async (batch: Batch): Promise<string | undefined> => {
    const signal = AbortSignal.any([abort.signal, AbortSignal.timeout(requestTimeoutMs)]);
    try {
      const answer = await request(url, {
        method: 'POST',
        headers,
        body: batch.body,
        dispatcher: agent,
        signal,
      });
      if (answer.statusCode >= 200 && answer.statusCode < 300) {
        await answer.body.dump();
        return undefined;
      }
      const text = (await answer.body.text()).split('\n')[0]?.slice(0, 200) ?? '';
      return `HTTP ${answer.statusCode}${text ? `: ${text}` : ''}`;
    } catch (cause) {
      if (signal.aborted && !abort.signal.aborted) return `no answer within ${requestTimeoutMs / 1000} s`;
      return oneLineOf(cause);
    }
  };

  const timer = setInterval(seal, flushEveryMs);
  timer.unref();

  const totals = () => ({ written, dropped, ...(error !== undefined && { error }) });

  return {
    unit: 'batches',
    write(records: readonly LiveRecord[]) {
      if (closed) return;
      try {
        for (const sample of series.samples(records)) {
          pending.push(sample);
          if (pending.length >= maxBatchSamples) seal();
        }
      } catch (cause) {
        // Never a throw into the run: a record that cannot be mapped costs its samples, counted as one batch.
        fail(`not mapped: ${oneLineOf(cause)}`);
      }
    },
    totals,
    async close(withinMs) {
      if (closed) return totals();
      clearInterval(timer);
      seal();
      if (inFlight || queue.length > 0) {
        await new Promise<void>((resolve) => {
          const giveUp = setTimeout(resolve, withinMs);
          idle = () => {
            clearTimeout(giveUp);
            resolve();
          };
        });
      }
      closed = true;
      idle = undefined;
      // What did not go in time is dropped: the queue, and the request still waiting for its answer.
      for (const _ of queue.splice(0)) fail('still queued at the end');
      if (inFlight) fail(`no answer within the ${withinMs / 1000} s the end waits`);
      abort.abort();
      await agent.destroy().catch(() => {});
      return totals();
    },
  };
}

/** undici's errors that wrap another keep the system's reason (ECONNREFUSED, …) in `cause`. */
function oneLineOf(cause: unknown): string {
  const inner = cause instanceof Error && cause.cause instanceof Error ? cause.cause : cause;
  return oneLine(inner, 200);
}
