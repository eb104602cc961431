/**
 * One delivery attempt over HTTP (undici): the destination's status, headers and body, read up to a
 * limit (the plan's maximum message size, which callback bodies may not exceed), or why nothing came
 * back: a refused connection, a timeout, a reset. The per-attempt timeout covers the whole exchange.
 */
import { Agent, request } from 'undici';
import type { AttemptOutcome } from './stored-message.ts';

export interface AttemptRequest {
  readonly url: string;
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  readonly timeoutMs: number;
  /** Bytes of the response body kept; the rest is counted and dropped. */
  readonly keepBytes: number;
}

function headerLists(headers: Record<string, string | string[] | undefined>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value : [value];
  }
  return out;
}

export class Deliverer {
  // Keep-alive sockets per destination; many at once, since each endpoint may run several attempts.
  // undici's request follows no redirect unless told to: a 3xx is the destination's answer.
  readonly #agent = new Agent({ connections: 256, keepAliveTimeout: 10_000, connect: { timeout: 10_000 } });

  async attempt(req: AttemptRequest): Promise<AttemptOutcome> {
    const signal = AbortSignal.timeout(req.timeoutMs);
    try {
      const hasBody = req.body.length > 0 && req.method !== 'GET' && req.method !== 'HEAD';
      const res = await request(req.url, {
        method: req.method as 'POST',
        headers: req.headers,
        ...(hasBody && { body: req.body }),
        dispatcher: this.#agent,
        signal,
        headersTimeout: req.timeoutMs,
        bodyTimeout: req.timeoutMs,
      });
      const kept: Buffer[] = [];
      let keptBytes = 0;
      let total = 0;
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        total += chunk.length;
        if (keptBytes < req.keepBytes) {
          const part = chunk.subarray(0, req.keepBytes - keptBytes);
          kept.push(part);
          keptBytes += part.length;
        }
      }
      return {
        answered: true,
        status: res.statusCode,
        header: headerLists(res.headers),
        body: Buffer.concat(kept),
        ...(total > keptBytes && { truncatedFrom: total }),
      };
    } catch (error) {
      const reason = signal.aborted
        ? `timeout after ${req.timeoutMs} ms`
        : error instanceof Error
          ? error.message
          : String(error);
      return { answered: false, reason };
    }
  }

  async close(): Promise<void> {
    await this.#agent.destroy();
  }
}
