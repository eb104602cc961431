/**
 * The sink as the messaging cases use it: one sink per suite file (started on first use where the
 * target's `sink` settings say, closed after the file), one inbox per case. Waiting is bounded by
 * `sink.waitSeconds` (default 15 s): a request that does not come is a failure of the rule the case
 * names ("never arrived within N s"). Every request an inbox got, and any request for another case
 * or for none, goes into the case's details.
 */
import { afterAll } from 'vitest';
import { CheckFailure } from '../../src/engines/conformance/check-failure.ts';
import type { CaseContext } from '../../src/engines/conformance/conformance-case.ts';
import {
  type Inbox,
  type Sink,
  type SinkAnswer,
  type SinkRequest,
  SinkTimeout,
  startSink,
} from '../../src/sink/sink-server.ts';
import { vendorHeader } from '../../src/target/dialects.ts';
import { signingKeysOf } from './messaging-adapter.ts';

const defaultWaitSeconds = 15;
/** How long a case waits for requests that must not come (a second callback, a late delivery). */
export const settleMs = 600;

let shared: Promise<Sink> | undefined;

/** Called once at the top of each messaging suite file. */
export function closeSinkAfterAll(): void {
  afterAll(async () => {
    const sink = shared;
    shared = undefined;
    await (await sink?.catch(() => undefined))?.close();
  });
}

function sinkFor(ctx: CaseContext): Promise<Sink> {
  const settings = ctx.target.sink ?? {};
  shared ??= startSink({
    ...(settings.host !== undefined && { host: settings.host }),
    ...(settings.port !== undefined && { port: settings.port }),
    ...(settings.url !== undefined && { publicUrl: settings.url }),
    signatureHeader: vendorHeader(ctx.dialect, 'Signature'),
    keys: () => signingKeysOf(ctx),
  });
  return shared;
}

/**
 * Requests that came again after their message was answered 2xx (at-least-once delivery allows it;
 * the case's details say so): one line per such message.
 */
export function duplicates(requests: readonly SinkRequest[], idHeader: string): string[] {
  const answered = new Set<string>();
  const lines: string[] = [];
  for (const request of requests) {
    const value = request.headers[idHeader.toLowerCase()];
    const id = Array.isArray(value) ? value[0] : value;
    if (id === undefined) continue;
    const key = `${request.role}\n${id}`;
    if (answered.has(key)) lines.push(`sink: ${request.role} arrived again after a 2xx answer (the same message id)`);
    if (request.answered >= 200 && request.answered < 300) answered.add(key);
  }
  return lines;
}

export interface CaseInbox {
  url(role: string, rest?: string): string;
  answer(role: string, answer: SinkAnswer): void;
  requests(role?: string): SinkRequest[];
  /** Waits for `count` requests of `role`; a shortfall fails `rule`. */
  arrive(rule: string, role: string, count?: number, what?: string): Promise<SinkRequest[]>;
  /** Lets requests that must not come have their chance. */
  settle(): Promise<void>;
}

export async function openInbox(ctx: CaseContext, label: string): Promise<CaseInbox> {
  const sink = await sinkFor(ctx);
  const inbox: Inbox = sink.open(label);
  const started = Date.now();
  const straysBefore = sink.strays().length;
  const waitMs = (ctx.target.sink?.waitSeconds ?? defaultWaitSeconds) * 1000;
  ctx.onCleanup(() => {
    inbox.close();
    for (const line of inbox.describe(started)) ctx.observe(line);
    for (const line of duplicates(inbox.requests(), vendorHeader(ctx.dialect, 'Message-Id'))) ctx.observe(line);
    for (const stray of sink.strays().slice(straysBefore)) {
      ctx.observe(
        `sink: a ${stray.kind === 'late' ? 'late request for a finished case' : 'request for no case'}: ${stray.method} ${stray.path}`,
      );
    }
  });
  return {
    url: (role, rest) => inbox.url(role, rest),
    answer: (role, answer) => inbox.answer(role, answer),
    requests: (role) => inbox.requests(role),
    async arrive(rule, role, count = 1, what = role) {
      try {
        return await inbox.waitFor(role, count, waitMs, ctx.signal);
      } catch (error) {
        if (!(error instanceof SinkTimeout)) throw error;
        const got = inbox.requests(role).length;
        throw new CheckFailure(
          rule,
          `${got} request${got === 1 ? '' : 's'} (${error.message})`,
          `${count} request${count === 1 ? '' : 's'}`,
          what,
        );
      }
    },
    settle: () => inbox.settle(settleMs, ctx.signal),
  };
}
