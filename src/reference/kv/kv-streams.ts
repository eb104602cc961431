/**
 * Area B's server-sent event streams: /monitor (Redis MONITOR on a dedicated connection) and
 * /subscribe/{channel} (and /psubscribe/{pattern}, which the official SDK uses), in the spec's formats.
 */
import { isUtf8 } from 'node:buffer';
import type { ServerResponse } from 'node:http';
import { ErrorReply } from '@redis/client';
import { collectWhenSettled } from '../../shared/memory-relief.ts';
import type { KvFaultCheck } from './kv-fault-check.ts';
import { type KvSilenceCheck, noSilence } from './kv-silences.ts';
import type { RedisUser } from './kv-tokens.ts';
import type { RedisClient, RedisConnections } from './redis-connections.ts';
import { eventFrame, heartbeatFrame, SharedFrames } from './sse-frames.ts';

const heartbeatMs = 15_000;

/**
 * What one stream may hold unsent for a client that reads slower than events arrive, like Redis's
 * own hard output-buffer limit for pub/sub clients; past it the client is dropped (its connection
 * reset, what was queued for it discarded), so a stalled reader cannot grow the service's memory
 * without bound.
 */
export const defaultStreamBufferBytes = 32 * 1024 * 1024;
const utf8 = new TextDecoder('utf-8', { fatal: false });

export type StreamKind = 'monitor' | 'subscribe' | 'psubscribe';

/** Open streams, so stopping the service ends them. */
export class KvStreams {
  readonly #connections: RedisConnections;
  readonly #fault: KvFaultCheck;
  readonly #silence: KvSilenceCheck;
  readonly #open = new Set<() => void>();
  readonly #bufferBytes: number;
  readonly #frames = new SharedFrames();
  /** `[<db> `: how MONITOR lines of area B's database begin after the timestamp. */
  readonly #database: string;

  constructor(
    connections: RedisConnections,
    fault: KvFaultCheck,
    bufferBytes = defaultStreamBufferBytes,
    database = 0,
    silence: KvSilenceCheck = noSilence,
  ) {
    this.#connections = connections;
    this.#fault = fault;
    this.#silence = silence;
    this.#bufferBytes = bufferBytes;
    this.#database = `[${database} `;
  }

  /**
   * Starts the stream on `res` once Redis has accepted it; a Redis refusal (e.g. an ACL user without
   * the channel) rejects before anything is written, so the caller can still answer an {error}.
   */
  async open(kind: StreamKind, name: Buffer, user: RedisUser | undefined, res: ServerResponse): Promise<void> {
    // A client may leave while Redis is still being asked: its 'close' has then passed by the time
    // the stream would start listening for it, so it is noted from the first moment.
    let left = false;
    const leave = () => {
      left = true;
    };
    res.once('close', leave);
    // Spec "Events" 4: the stream carries what its Redis connection sends; a lost connection ends it.
    let end: () => void = () => {};
    let client: RedisClient;
    try {
      client = await this.#connections.dedicated(user, () => end());
    } catch (error) {
      res.off('close', leave);
      throw error;
    }
    const pending: Buffer[] = [];
    let started = false;
    let ended = false;
    end = () => {
      if (ended) return;
      ended = true;
      clearInterval(heartbeat);
      this.#open.delete(end);
      this.#connections.release(client);
      // Before the stream started the caller still answers an {error} on `res`.
      if (started && !res.writableEnded) res.end();
    };
    const heartbeat = setInterval(() => send(res, heartbeatFrame, this.#bufferBytes), heartbeatMs);
    heartbeat.unref();
    const emit = (frame: Buffer) => (started ? send(res, frame, this.#bufferBytes) : pending.push(frame));
    try {
      if (!left) await this.#start(kind, name, client, emit);
      // Lost while starting: no stream to open, and the caller answers the failure.
      if (ended) throw new Error('the Redis connection closed');
    } catch (error) {
      end();
      throw error;
    } finally {
      res.off('close', leave);
    }
    // Gone while Redis accepted the stream: nobody is left to send it to.
    if (left || res.destroyed) return end();
    this.#open.add(end);
    res.on('close', end);
    res.writeHead(200, {
      // Silence content-type-parameters: a charset parameter on the label (the notes show none).
      'content-type': this.#silence('content-type-parameters')
        ? 'text/event-stream; charset=utf-8'
        : 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    // Headers go out now: a stream may have nothing to say for a while.
    res.flushHeaders();
    started = true;
    for (const frame of pending.splice(0)) send(res, frame, this.#bufferBytes);
  }

  closeAll(): void {
    for (const end of [...this.#open]) end();
    this.#frames.clear();
  }

  async #start(kind: StreamKind, name: Buffer, client: RedisClient, emitFrame: (frame: Buffer) => void): Promise<void> {
    const emit = (data: string) => emitFrame(eventFrame(data));
    if (kind === 'monitor') {
      // Spec "Endpoints > Area B" (/monitor): the first data item is OK (notes: `"OK"`).
      if (!this.#fault('monitor-drops-ok')) emit('"OK"');
      const inTransaction = new Set<string>();
      // Fault monitor-events-swapped: every other command item is held back and sent after the next,
      // and the two exchange timestamps, so they still rise along the stream: the later command then
      // claims to have been seen first (the order of the items alone the spec does not fix).
      let held: string | undefined;
      const emitCommand = (data: string) => {
        if (!this.#fault('monitor-events-swapped')) return emit(data);
        if (held === undefined) held = data;
        else {
          const stamp = (line: string) => line.slice(0, line.indexOf(' '));
          const body = (line: string) => line.slice(line.indexOf(' '));
          emit(stamp(held) + body(data));
          emit(stamp(data) + body(held));
          held = undefined;
        }
      };
      await client.monitor((line) => {
        // MONITOR is server-wide: areas A and C work in another database, whose commands (and the
        // account's secrets they carry) are none of area B's business.
        const text = String(line);
        if (this.#fault('monitor-misses-transactions') && insideTransaction(text, inTransaction)) return;
        if (text.slice(text.indexOf(' ') + 1).startsWith(this.#database)) emitCommand(this.#monitorLine(text));
      });
      return;
    }
    // Spec "Endpoints > Area B" (/subscribe): subscribe,<channel>,<count> then message,<channel>,<message>.
    const count = this.#fault('subscribe-wrong-count') ? 0 : 1;
    const shown = utf8.decode(name);
    if (kind === 'subscribe') {
      // Every subscriber of the channel gets the message: its frame is encoded once for all of them.
      const prefix = `message,${shown},`;
      const deliver = (message: Buffer) =>
        emitFrame(this.#frames.frame(prefix, message, () => prefix + this.#payload(message)));
      if (this.#fault('subscribe-prefix-match')) await client.pSubscribe(`${patternOf(name)}*`, deliver, true);
      else if (this.#fault('subscribe-as-pattern')) await client.pSubscribe(shown, deliver, true);
      else if (isUtf8(name)) await client.subscribe(shown, deliver, true);
      else {
        // Spec "Endpoints > Area B": any byte may be percent-escaped. The client writes and dispatches
        // channels as UTF-8 text, so a channel that is not UTF-8 is reached by an ASCII pattern
        // matching it, with the channels the pattern also matches filtered out here.
        await client.pSubscribe(
          patternOf(name),
          (message: Buffer, channel: Buffer) => (channel.equals(name) ? deliver(message) : undefined),
          true,
        );
      }
      emit(`subscribe,${shown},${count}`);
      return;
    }
    // The SDK's /psubscribe: a pattern is matched by Redis, so only its exact bytes will do.
    if (!isUtf8(name)) throw new ErrorReply('ERR a /psubscribe pattern must be valid UTF-8');
    await client.pSubscribe(
      shown,
      (message: Buffer, channel: Buffer) => {
        const prefix = `pmessage,${shown},${utf8.decode(channel)},`;
        emitFrame(this.#frames.frame(prefix, message, () => prefix + this.#payload(message)));
      },
      true,
    );
    emit(`psubscribe,${shown},${count}`);
  }

  #payload(message: Buffer): string {
    // Server-sent payloads are not base64-encoded (notes, area B); everything after the second comma.
    const text = utf8.decode(message);
    return this.#fault('message-comma-truncation') ? (text.split(',')[0] ?? '') : text;
  }

  #monitorLine(line: string): string {
    // Notes, area B: Redis's MONITOR line with the client shown as 0.0.0.0:0.
    const shown = line.replace(/^(\d+\.\d+ \[\d+ )(?!lua\])[^\]]*\]/, '$10.0.0.0:0]');
    // Silence monitor-own-line: the spec names the parts (timestamp, client tag, quoted command and
    // arguments), not Redis's punctuation: another tag, and each argument quoted as a JSON string.
    if (this.#silence('monitor-own-line')) return ownMonitorLine(line) ?? shown;
    if (this.#fault('monitor-unescaped-quotes')) return shown.replaceAll('\\"', '"');
    return this.#fault('monitor-unquoted') ? shown.replaceAll('"', '') : shown;
  }
}

/** Fault monitor-misses-transactions: whether the line is MULTI, EXEC or a command between them. */
function insideTransaction(line: string, open: Set<string>): boolean {
  const match = /^\S+ \[(\d+ [^\]]+)\] "([^"]*)"/.exec(line);
  if (!match) return false;
  const [, client = '', command = ''] = match;
  const name = command.toUpperCase();
  if (name === 'MULTI') return Boolean(open.add(client));
  if (name === 'EXEC' || name === 'DISCARD') return open.delete(client) || true;
  return open.has(client);
}

/** A glob pattern of ASCII only that matches `channel`: each byte above 0x7F becomes `?`. */
function patternOf(channel: Buffer): string {
  let pattern = '';
  for (const byte of channel) {
    if (byte > 0x7f) pattern += '?';
    else {
      const char = String.fromCharCode(byte);
      pattern += '*?[]\\'.includes(char) ? `\\${char}` : char;
    }
  }
  return pattern;
}

/** Writes one event's frame; a client this far behind is dropped. */
function send(res: ServerResponse, frame: Buffer, bufferBytes: number): void {
  if (res.writableEnded || res.destroyed) return;
  res.write(frame);
  if (res.writableLength > bufferBytes) drop(res);
}

/**
 * Drops a slow client at once: a reset, not a close. A close (FIN) would leave the kernel's send
 * queue (megabytes on loopback) to be delivered first, so the client would read that backlog before
 * learning it was dropped, and the queue would live until it did; a reset discards it, and the
 * client's next read fails. The response's own queued chunks go with the destroyed socket, and its
 * 'close' ends the stream (the Redis connection, the subscription).
 */
function drop(res: ServerResponse): void {
  const socket = res.socket;
  try {
    if (socket && !socket.destroyed) socket.resetAndDestroy();
  } catch {
    // Not a TCP socket (resetAndDestroy throws for a pipe): an ordinary destroy below.
  }
  res.destroy();
  // What was queued for it is garbage now, megabytes of it: collected once the drops settle.
  collectWhenSettled();
}

/**
 * Silence monitor-own-line: a MONITOR line re-told as `<timestamp> client=10.0.0.7:51234 "CMD" "arg" …`,
 * each argument's bytes decoded as UTF-8 and quoted as a JSON string; undefined when the line is not one.
 */
function ownMonitorLine(line: string): string | undefined {
  const match = /^(\d+\.\d+) \[[^\]]*\] (.*)$/s.exec(line);
  if (!match) return undefined;
  const args = redisQuotedArgs(match[2] ?? '');
  if (!args) return undefined;
  return `${match[1]} client=10.0.0.7:51234 ${args.map((arg) => JSON.stringify(utf8.decode(arg))).join(' ')}`;
}

/** Redis's quoted tokens (sdscatrepr: `\"`, `\\`, `\n`, `\r`, `\t`, `\a`, `\b`, `\xHH`) as their bytes. */
function redisQuotedArgs(rest: string): Buffer[] | undefined {
  const named: Record<string, number> = { n: 10, r: 13, t: 9, a: 7, b: 8, '"': 34, '\\': 92 };
  const args: Buffer[] = [];
  for (const token of rest.match(/"(?:[^"\\]|\\.)*"/g) ?? []) {
    const bytes: number[] = [];
    const body = token.slice(1, -1);
    for (let at = 0; at < body.length; at++) {
      const char = body[at] ?? '';
      if (char !== '\\') {
        bytes.push(...Buffer.from(char, 'latin1'));
        continue;
      }
      const next = body[at + 1] ?? '';
      if (next === 'x') {
        bytes.push(Number.parseInt(body.slice(at + 2, at + 4), 16));
        at += 3;
      } else {
        bytes.push(named[next] ?? next.charCodeAt(0));
        at += 1;
      }
    }
    args.push(Buffer.from(bytes));
  }
  return args.length === 0 ? undefined : args;
}
