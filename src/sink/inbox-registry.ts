/**
 * The conformance inboxes by token, on the calling thread, and the answer to every request that is no
 * counting inbox's: the inbox it names records it (signature and replay checked) and says what to
 * answer, and a request for no open inbox is logged as a stray (or late, when its inbox was closed).
 * Whichever front took the request (this thread's server, or a sink thread forwarding it) asks here.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { defaultAnswerBody, Inbox } from './conformance-inbox.ts';
import type { ReplayWatch } from './replay-watch.ts';
import type { SinkLog } from './sink-log.ts';
import { matchSinkPath, type SinkBase } from './sink-paths.ts';
import { noInbox, type Reply } from './sink-reply.ts';

/** One request as a front read it: `at` in fractional Unix milliseconds. */
export interface ArrivedRequest {
  readonly path: string;
  readonly method: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  readonly at: number;
}

export class InboxRegistry {
  readonly #inboxes = new Map<string, Inbox>();
  readonly #base: () => SinkBase;
  readonly #signatureHeader: string;
  readonly #replays: ReplayWatch;
  readonly #log: SinkLog;

  /** `base`: the advertised base URL, known once the sink listens (no inbox is open before). */
  constructor(options: {
    readonly base: () => SinkBase;
    readonly signatureHeader: string;
    readonly replays: ReplayWatch;
    readonly log: SinkLog;
  }) {
    this.#base = options.base;
    this.#signatureHeader = options.signatureHeader.toLowerCase();
    this.#replays = options.replays;
    this.#log = options.log;
  }

  open(label: string): Inbox {
    const inbox = new Inbox(this.#base(), label);
    this.#inboxes.set(inbox.token, inbox);
    return inbox;
  }

  /** Records a request for a conformance inbox, or for none, and says how to answer it. */
  async answer({ path, method, headers, body, at }: ArrivedRequest): Promise<Reply> {
    const match = matchSinkPath(path, this.#base());
    const inbox = match === undefined ? undefined : this.#inboxes.get(match.token);
    if (match === undefined || inbox === undefined || inbox.closed) {
      this.#log.stray({ path: path.slice(0, 200), method, at: Math.floor(at), kind: inbox ? 'late' : 'stray' });
      return noInbox;
    }
    this.#log.arrived(at);
    const header = headers[this.#signatureHeader];
    const { signature, replayOf } = await this.#replays.verify(match, Array.isArray(header) ? header[0] : header, body);
    const { status, answer } = inbox.receive({
      role: match.role,
      method,
      rest: match.rest,
      headers,
      body,
      at: Math.floor(at),
      signature,
      ...(replayOf !== undefined && { replayOf }),
    });
    return {
      status,
      headers: { ...answer.headers },
      body: answer.body ?? defaultAnswerBody,
      ...(answer.delayMs !== undefined && { delayMs: answer.delayMs }),
    };
  }
}
