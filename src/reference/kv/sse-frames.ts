/**
 * Area B's server-sent events as the bytes written: each event is encoded once into a Buffer, and a
 * message that N subscribers of a channel receive (each on its own Redis connection, so each gets its
 * own copy of the bytes) is encoded once for all of them, so N slow readers queue one Buffer between
 * them rather than N strings of their own (issue 25).
 */

/** The heartbeat: an SSE comment, which clients ignore. */
export const heartbeatFrame: Buffer = Buffer.from(': keep-alive\n\n', 'latin1');

/** One SSE event; newlines in `data` split it into data lines. */
export function eventFrame(data: string): Buffer {
  return Buffer.from(
    `${data
      .split(/\r\n|\r|\n/)
      .map((line) => `data: ${line}`)
      .join('\n')}\n\n`,
    'utf8',
  );
}

/** How long an encoded message is kept for the other subscribers that receive it. */
const holdMs = 1_000;
/** How many recent messages are kept (the oldest goes first). */
const mostRecent = 32;

interface Recent {
  /** A copy of the message's bytes: a small message may be a view into a connection's read buffer. */
  readonly message: Buffer;
  readonly frame: Buffer;
}

/**
 * The frames of the messages published lately, by their event's prefix (`message,<channel>,` or
 * `pmessage,<pattern>,<channel>,`): the same bytes under the same prefix are the same event, so a
 * later subscriber takes the frame an earlier one encoded. Redis sends a publish to every subscriber
 * at once, so a short hold finds them all; nothing is kept past it.
 */
export class SharedFrames {
  readonly #recent = new Map<string, Recent>();
  #sweep: NodeJS.Timeout | undefined;

  /** The frame of `message` under `prefix`; `render` gives the event's data when it is not kept. */
  frame(prefix: string, message: Buffer, render: () => string): Buffer {
    const kept = this.#recent.get(prefix);
    if (kept?.message.equals(message)) return kept.frame;
    const frame = eventFrame(render());
    this.#recent.delete(prefix);
    this.#recent.set(prefix, { message: Buffer.from(message), frame });
    if (this.#recent.size > mostRecent) this.#recent.delete(this.#recent.keys().next().value as string);
    this.#sweep ??= setTimeout(() => this.clear(), holdMs).unref();
    return frame;
  }

  clear(): void {
    clearTimeout(this.#sweep);
    this.#sweep = undefined;
    this.#recent.clear();
  }
}
