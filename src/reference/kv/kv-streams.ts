/**
 * Area B's server-sent event streams: /monitor (Redis MONITOR on a dedicated connection) and
 * /subscribe/{channel} (and /psubscribe/{pattern}, which the official SDK uses), in the spec's formats.
 */
import type { ServerResponse } from 'node:http';
import type { KvFaultCheck } from './kv-fault-check.ts';
import type { RedisUser } from './kv-tokens.ts';
import type { RedisClient, RedisConnections } from './redis-connections.ts';

const heartbeatMs = 15_000;
const utf8 = new TextDecoder('utf-8', { fatal: false });

export type StreamKind = 'monitor' | 'subscribe' | 'psubscribe';

/** Open streams, so stopping the service ends them. */
export class KvStreams {
  readonly #connections: RedisConnections;
  readonly #fault: KvFaultCheck;
  readonly #open = new Set<() => void>();

  constructor(connections: RedisConnections, fault: KvFaultCheck) {
    this.#connections = connections;
    this.#fault = fault;
  }

  /**
   * Starts the stream on `res` once Redis has accepted it; a Redis refusal (e.g. an ACL user without
   * the channel) rejects before anything is written, so the caller can still answer an {error}.
   */
  async open(kind: StreamKind, name: string, user: RedisUser | undefined, res: ServerResponse): Promise<void> {
    const client = await this.#connections.dedicated(user);
    const pending: string[] = [];
    let started = false;
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      clearInterval(heartbeat);
      this.#open.delete(end);
      this.#connections.release(client);
      // Before the stream started the caller still answers an {error} on `res`.
      if (started && !res.writableEnded) res.end();
    };
    const heartbeat = setInterval(() => send(res, undefined), heartbeatMs);
    heartbeat.unref();
    const emit = (data: string) => (started ? send(res, data) : pending.push(data));
    try {
      await this.#start(kind, name, client, emit);
    } catch (error) {
      end();
      throw error;
    }
    this.#open.add(end);
    res.on('close', end);
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    // Headers go out now: a stream may have nothing to say for a while.
    res.flushHeaders();
    started = true;
    for (const data of pending.splice(0)) send(res, data);
  }

  closeAll(): void {
    for (const end of [...this.#open]) end();
  }

  async #start(kind: StreamKind, name: string, client: RedisClient, emit: (data: string) => void): Promise<void> {
    if (kind === 'monitor') {
      // Spec "Endpoints > Area B" (/monitor): the first data item is OK (notes: `"OK"`).
      if (!this.#fault('monitor-drops-ok')) emit('"OK"');
      await client.monitor((line) => emit(this.#monitorLine(String(line))));
      return;
    }
    // Spec "Endpoints > Area B" (/subscribe): subscribe,<channel>,<count> then message,<channel>,<message>.
    const count = this.#fault('subscribe-wrong-count') ? 0 : 1;
    if (kind === 'subscribe') {
      await client.subscribe(name, (message: Buffer) => emit(`message,${name},${this.#payload(message)}`), true);
      emit(`subscribe,${name},${count}`);
      return;
    }
    await client.pSubscribe(
      name,
      (message: Buffer, channel: Buffer) => emit(`pmessage,${name},${utf8.decode(channel)},${this.#payload(message)}`),
      true,
    );
    emit(`psubscribe,${name},${count}`);
  }

  #payload(message: Buffer): string {
    // Server-sent payloads are not base64-encoded (notes, area B); everything after the second comma.
    const text = utf8.decode(message);
    return this.#fault('message-comma-truncation') ? (text.split(',')[0] ?? '') : text;
  }

  #monitorLine(line: string): string {
    // Notes, area B: Redis's MONITOR line with the client shown as 0.0.0.0:0.
    const shown = line.replace(/^(\d+\.\d+ \[\d+ )(?!lua\])[^\]]*\]/, '$10.0.0.0:0]');
    return this.#fault('monitor-unquoted') ? shown.replaceAll('"', '') : shown;
  }
}

/** One SSE event (or a heartbeat comment when `data` is undefined); newlines split into data lines. */
function send(res: ServerResponse, data: string | undefined): void {
  if (res.writableEnded || res.destroyed) return;
  if (data === undefined) {
    res.write(': keep-alive\n\n');
    return;
  }
  res.write(
    `${data
      .split(/\r\n|\r|\n/)
      .map((line) => `data: ${line}`)
      .join('\n')}\n\n`,
  );
}
