/**
 * The mutating proxy: an HTTP server on loopback that forwards every request to one upstream (an area
 * of the target in front of it, or the sink behind it) and applies at most one mutant, an operator on
 * one route class, to the exchanges of that class. Bodies are buffered (test payloads are small); an
 * SSE answer is passed on event by event, so stream operators act while it flows. It counts how often
 * the mutant changed something, and hands every exchange to `onExchange` (a clean run is recorded so).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import {
  type Area,
  contentType,
  type Exchange,
  type Headers,
  plainHeaders,
  type RequestMessage,
  type ResponseMessage,
  routeClassOf,
  type Side,
} from './exchange.ts';
import type { MutationContext, Operator, RequestOutcome, TargetCredentials } from './operator.ts';
import { delayMs } from './operators/delivery.ts';

export interface Mutant {
  readonly operator: Operator;
  readonly routeClass: string;
}

export interface ProxyOptions {
  /** The origin requests go to: `http://127.0.0.1:PORT`. */
  readonly upstream: string;
  readonly side: Side;
  /** The area in front of which it sits (`messaging` for the delivery side). */
  readonly area: Area;
  readonly credentials: TargetCredentials;
  readonly signingKeys: () => Promise<readonly string[]>;
  readonly onExchange?: (exchange: Exchange) => void;
}

export interface MutatingProxy {
  readonly url: string;
  /** Turns a mutant on (undefined: plain forwarding); resets the count. */
  setMutant(mutant: Mutant | undefined): void;
  /** How many exchanges the mutant changed since it was set. */
  fired(): number;
  /** Up to three exchanges it changed, one line each (no secrets: method, path without query, status). */
  changed(): readonly string[];
  close(): Promise<void>;
}

/** Hop-by-hop and length headers: node and undici set them for each leg. */
const perLeg = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host', 'upgrade']);
/** Long enough for a case's slow endpoint (a sink answering late); no stream is cut by it. */
const upstreamTimeoutMs = 120_000;

function forwardable(headers: Headers): Headers {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !perLeg.has(name)));
}

async function readBody(stream: AsyncIterable<Buffer | string>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}

function pathOf(path: string): string {
  return path.split('?')[0] ?? path;
}

export async function startMutatingProxy(options: ProxyOptions): Promise<MutatingProxy> {
  const pool = new Pool(options.upstream, {
    connections: 32,
    headersTimeout: upstreamTimeoutMs,
    bodyTimeout: upstreamTimeoutMs,
  });
  let mutant: Mutant | undefined;
  let fired = 0;
  let changed: string[] = [];
  let context: MutationContext = newContext();

  function newContext(): MutationContext {
    return {
      area: options.area,
      side: options.side,
      credentials: options.credentials,
      signingKeys: options.signingKeys,
      memory: new Map(),
    };
  }

  function fire(request: RequestMessage, status: number | string): void {
    fired++;
    if (changed.length < 3) changed.push(`${request.method} ${pathOf(request.path).slice(0, 90)} → ${status}`);
  }

  async function send(request: RequestMessage, signal: AbortSignal) {
    return pool.request({
      path: request.path,
      method: request.method as 'GET',
      headers: forwardable(request.headers),
      body: request.body.length > 0 || !['GET', 'HEAD'].includes(request.method) ? request.body : null,
      signal,
      bodyTimeout: upstreamTimeoutMs,
    });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const at = Date.now();
    const original: RequestMessage = {
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      headers: plainHeaders(req.headers),
      body: await readBody(req),
    };
    const routeClass = routeClassOf(options.side, options.area, original);
    const active = mutant !== undefined && mutant.routeClass === routeClass ? mutant.operator : undefined;
    let outcome: RequestOutcome = { request: original };
    let requestChanged = false;
    if (active?.request) {
      const mutated = await active.request(original, context);
      if (mutated) {
        outcome = mutated;
        requestChanged = true;
      }
    }
    const { request, action } = outcome;
    if (action === 'drop') {
      fire(request, 'dropped');
      res.writeHead(200, { 'content-type': 'text/plain' }).end('OK');
      return;
    }
    if (action === 'delay') await sleep(delayMs);
    const aborter = new AbortController();
    res.on('close', () => aborter.abort());
    if (action === 'duplicate') {
      const first = await send(request, aborter.signal);
      await first.body.dump();
    }
    const answer = await send(request, aborter.signal);
    const headers = plainHeaders(answer.headers as Record<string, string | string[]>);
    if (contentType({ headers, body: Buffer.alloc(0) }) === 'text/event-stream') {
      if (requestChanged) fire(request, answer.statusCode);
      await relayStream(request, answer.statusCode, headers, answer.body, res, active, (events) =>
        options.onExchange?.({
          side: options.side,
          area: options.area,
          routeClass,
          request: original,
          response: { status: answer.statusCode, headers, body: Buffer.alloc(0) },
          events,
          at,
        }),
      );
      return;
    }
    const clean: ResponseMessage = { status: answer.statusCode, headers, body: await readBody(answer.body) };
    const mutated = active?.response?.(clean, request, options.side);
    if (requestChanged || mutated) fire(request, (mutated ?? clean).status);
    const sent = mutated ?? clean;
    options.onExchange?.({
      side: options.side,
      area: options.area,
      routeClass,
      request: original,
      response: clean,
      at,
    });
    res.writeHead(sent.status, { ...forwardable(sent.headers), 'content-length': String(sent.body.length) });
    res.end(sent.body);
  }

  /** Passes an SSE answer on event by event through the operator's stream mutator, if it has one. */
  async function relayStream(
    request: RequestMessage,
    status: number,
    headers: Headers,
    body: AsyncIterable<Buffer>,
    res: ServerResponse,
    active: Operator | undefined,
    done: (events: string[]) => void,
  ): Promise<void> {
    const mutator = active?.sse?.();
    const events: string[] = [];
    let streamFired = false;
    res.writeHead(status, forwardable(headers));
    res.flushHeaders();
    // `incoming` undefined: what the mutator lets out when the stream ends.
    const emit = (incoming: string | undefined, out: string[]) => {
      const same = incoming === undefined ? out.length === 0 : out.length === 1 && out[0] === incoming;
      if (!same && !streamFired) {
        streamFired = true;
        fire(request, status);
      }
      for (const event of out) res.write(`${event}\n\n`);
    };
    let pending = '';
    try {
      for await (const chunk of body) {
        pending += chunk.toString('utf8');
        for (let end = pending.search(/\r?\n\r?\n/); end >= 0; end = pending.search(/\r?\n\r?\n/)) {
          const event = pending.slice(0, end);
          pending = pending.slice(end).replace(/^\r?\n\r?\n/, '');
          events.push(event);
          emit(event, mutator ? mutator.event(event) : [event]);
        }
      }
      if (mutator) emit(undefined, mutator.end());
    } catch {
      // The client went away (the case closed its stream): the upstream read was aborted.
    } finally {
      if (pending !== '' && !res.destroyed) res.write(pending);
      res.end();
      done(events);
    }
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      // The upstream refused or reset: say so as a gateway would; a case then sees the target down.
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`mutating proxy: ${error instanceof Error ? error.message : String(error)}`);
    });
  });
  // As long as fastify's (the reference's own servers): with node's 5 s, a client reusing a connection
  // the moment the proxy closes it sees a reset under load, a transport error the target never made.
  server.keepAliveTimeout = 72_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    setMutant(next) {
      mutant = next;
      fired = 0;
      changed = [];
      context = newContext();
    },
    fired: () => fired,
    changed: () => changed,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await pool.destroy();
    },
  };
}
