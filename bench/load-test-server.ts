/**
 * The load benchmarks' target, run as a child process so its CPU is never the load generator's:
 * a minimal node:http server that answers every request 200 `{"result":"OK"}` (application/json).
 * With `--stall-every MS --stall MS` it holds every request arriving in the first `stall` ms of each
 * `stall-every` ms window (windows aligned to the server's own start) until that part ends.
 *
 *   node bench/load-test-server.ts [--stall-every 4000 --stall 1000]
 *
 * Prints one JSON line `{"port", "plainPort", "startedAt"}` once listening: `port` stalls (if asked),
 * `plainPort` never does. Control paths (on either port):
 *   GET /start-at?ms=M → later /clock answers count to M ms into a window, not to its edge
 *   GET /clock  → `{"result":"OK","untilWindowMs":…,"windowMs":…,"stallMs":…}` and starts a new
 *                 "first arrival" mark (the next other request's offset in its window is kept)
 *   GET /first  → `{"result":"OK","firstOffsetMs":…,"count":…,"releases":[…]}`: offset of that
 *                 first arrival, how many requests arrived since /clock, and each release of held
 *                 answers since (count, ms late, ms spent writing them)
 * Exits when stdin closes (its parent died) or on SIGTERM.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { benchArgs } from './run-bench.ts';

const { values } = benchArgs(import.meta.filename, {
  options: { 'stall-every': { type: 'string', default: '0' }, stall: { type: 'string', default: '0' } },
});
const windowMs = Number(values['stall-every']);
const stallMs = Number(values.stall);
const stalling = windowMs > 0 && stallMs > 0;
const started = performance.now();

const okBody = Buffer.from('{"result":"OK"}');
const headers = { 'content-type': 'application/json', 'content-length': String(okBody.length) };

let firstOffsetMs: number | undefined;
/** Where in a window /clock tells a run to start (GET /start-at?ms=…). */
let startAtMs = 0;
let count = 0;

const offsetOf = (now: number) => (now - started) % windowMs;

/** Held answers, in arrival order, released together when the stalled part of their window ends. */
let held: ServerResponse[] = [];
/** Each release since /clock: how many answers, how late it began, how long writing them took. */
let releases: { count: number; lateMs: number; ms: number }[] = [];
let releaseTimer: NodeJS.Timeout | undefined;

function answer(res: ServerResponse): void {
  res.writeHead(200, headers);
  res.end(okBody);
}

function hold(res: ServerResponse, releaseAt: number): void {
  held.push(res);
  if (releaseTimer) return;
  const release = () => {
    // A timer may fire a little early: never answer before the stalled part has ended.
    const early = releaseAt - performance.now();
    if (early > 0) {
      releaseTimer = setTimeout(release, early);
      return;
    }
    releaseTimer = undefined;
    const batch = held;
    held = [];
    const start = performance.now();
    for (const item of batch) answer(item);
    releases.push({ count: batch.length, lateMs: start - releaseAt, ms: performance.now() - start });
  };
  releaseTimer = setTimeout(release, releaseAt - performance.now());
}

function json(res: ServerResponse, value: object): void {
  const body = JSON.stringify({ result: 'OK', ...value });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
  res.end(body);
}

function handler(stall: boolean) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const now = performance.now();
    // Bodies are ignored, but read so the connection stays usable.
    req.resume();
    if (req.url?.startsWith('/start-at?ms=')) {
      startAtMs = Number(req.url.slice('/start-at?ms='.length)) % windowMs || 0;
      json(res, { startAtMs });
      return;
    }
    if (req.url === '/clock') {
      firstOffsetMs = undefined;
      count = 0;
      releases = [];
      // Until the next point `startAtMs` into a window (the window's edge by default).
      const untilWindowMs = stalling ? (startAtMs - offsetOf(now) + windowMs) % windowMs || windowMs : 0;
      json(res, { untilWindowMs, windowMs: stalling ? windowMs : 0, stallMs: stalling ? stallMs : 0 });
      return;
    }
    if (req.url === '/first') {
      json(res, { firstOffsetMs: firstOffsetMs ?? null, count, releases });
      return;
    }
    count++;
    const offset = stalling ? offsetOf(now) : 0;
    if (firstOffsetMs === undefined) firstOffsetMs = offset;
    if (stall && stalling && offset < stallMs) {
      hold(res, now - offset + stallMs);
      return;
    }
    answer(res);
  };
}

function listen(server: Server): Promise<number> {
  server.keepAliveTimeout = 30_000;
  server.headersTimeout = 60_000;
  server.requestTimeout = 0;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

const servers = [createServer(handler(true)), createServer(handler(false))];
const [port, plainPort] = await Promise.all(servers.map(listen));
process.stdout.write(`${JSON.stringify({ port, plainPort, startedAt: performance.timeOrigin + started })}\n`);

const stop = () => {
  for (const server of servers) server.closeAllConnections();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.on('close', stop);
process.stdin.resume();
