/**
 * The sink as the messaging cases use it: one sink per run of the suites (started on first use where the
 * target's `sink` settings say, closed after the last case), one inbox per case. Waiting is bounded by
 * `sink.waitSeconds` (default 15 s): a request that does not come is a failure of the rule the case
 * names ("never arrived within N s"). Waits end on the first evidence instead of running out:
 * - a request whose signature the sink cannot verify (under the target's declared scheme) fails the
 *   case on A.signature.verifiable at once; `signedCases` makes that the verdict of every request of
 *   the case, whenever it came;
 * - a check the case registered with `judge` that a request breaks fails the case at once;
 * - when an earlier wait ran out with nothing at all for its inbox, and nothing has reached the sink
 *   since, the target delivers nothing: a later wait gives up after a short grace, blocked on
 *   A.publish.delivers (or failing it, when that is the wait's own rule), instead of 15 s each.
 * Every request an inbox got, and any request for another case or for none, goes into the details.
 */
import {
  Blocked,
  type CaseContext,
  CaseSkipped,
  CheckFailure,
  type ConformanceCase,
  type Inbox,
  onSuitesEnd,
  type Sink,
  type SinkAnswer,
  type SinkRequest,
  SinkTimeout,
  startTargetSink,
  vendorHeader,
} from '../../src/suite-kit/suite-api.ts';
import { messagingRuleCatalog } from '../rules/messaging-rules.ts';
import { signingKeysOf } from './messaging-adapter.ts';

const defaultWaitSeconds = 15;
/** How long a case waits for requests that must not come (a second callback, a late delivery). */
export const settleMs = 600;
/**
 * How long a wait lasts once the target is known to deliver nothing: a delivering target's first
 * request comes well within it, and it ends the drought for every wait.
 */
export const droughtGraceMs = 3000;
export const signatureRule = 'A.signature.verifiable';

let shared: Promise<Sink> | undefined;

/**
 * Suite-wide evidence that the target delivers nothing: set when a wait ran out with nothing at all
 * for its inbox while nothing reached the sink; any request to the sink ends it. Kept across the
 * suite's files (one worker, no isolation), as the one sink of the run is.
 */
let drought:
  | { readonly target: string; readonly since: number; readonly label: string; readonly seconds: number }
  | undefined;

/** Whose drought it is: one run (the key prefix's run id) against one target. */
function droughtKey(ctx: CaseContext): string {
  return `${ctx.keyPrefix.split(':')[1] ?? ''} ${ctx.target.name} ${ctx.target.messaging?.url ?? ''}`;
}
let lastArrivalAt = 0;

/** Closes the shared sink, if one started; the suites' end runs it (`onSuitesEnd`, registered at the start). */
export async function closeSink(): Promise<void> {
  const sink = shared;
  shared = undefined;
  const closed = await sink?.catch(() => undefined);
  lastArrivalAt = Math.max(lastArrivalAt, closed?.lastArrivalAt() ?? 0);
  await closed?.close();
}

/**
 * The suite file's sink, started as load starts its own (`startTargetSink`: the target's `sink`, with
 * the command line's flags already merged in by the engine), with the keys read through the adapter.
 * Threads: 0 unless the target says otherwise; a case's inbox lives on this thread either way.
 */
function sinkFor(ctx: CaseContext): Promise<Sink> {
  if (shared === undefined) {
    shared = startTargetSink({ target: ctx.target, keys: () => signingKeysOf(ctx), defaultThreads: 0 });
    onSuitesEnd(closeSink);
  }
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

/** A request whose signature failed, as the failure of the signature rule; undefined when none did. */
export function signatureFailure(requests: readonly SinkRequest[]): CheckFailure | undefined {
  for (const request of requests) {
    if (request.signature.ok === false) {
      return new CheckFailure(
        signatureRule,
        request.signature.problem,
        'a signature the current or the next signing key verifies',
        `the ${request.role} request (${request.method}${request.rest ? ` …${request.rest.slice(0, 40)}` : ''})`,
      );
    }
  }
  return undefined;
}

/** One wait of `arriveAll`: `count` requests of `role`, a shortfall failing `rule`. */
export interface Arrival {
  readonly rule: string;
  readonly role: string;
  /** @default 1 */
  readonly count?: number;
  /** What the failure names. @default role */
  readonly what?: string;
  /**
   * The request comes only once a message's retries are over (a failure callback, the callback of the
   * last attempt): the role of its attempts and the retries asked. How many retries a message gets is
   * the target's (Svc-Retries is not in the spec), and so is its backoff: when the wait runs out on a
   * target that made more attempts than asked, its retries are its own and did not end within the
   * wait, and the case is skipped saying so rather than failed.
   */
  readonly afterRetries?: RetriesAsked;
}

/** The attempts of a message (its role) and the retries the case asked of it. */
export interface RetriesAsked {
  readonly role: string;
  readonly asked: number;
  /**
   * Roles of callbacks of such messages: their bodies' maxRetries ("Retries allowed before the message
   * counts as failed") say how many retries the target allows, so one above `asked` shows its own.
   */
  readonly callbacks?: readonly string[];
}

/** The largest maxRetries the callbacks of these roles announce, or -1 when none does. */
function announcedRetries(requests: readonly SinkRequest[]): number {
  let most = -1;
  for (const request of requests) {
    try {
      const body = JSON.parse(request.body.toString('utf8')) as { maxRetries?: unknown };
      if (typeof body.maxRetries === 'number') most = Math.max(most, body.maxRetries);
    } catch {
      // Not JSON: the case's own checks judge it.
    }
  }
  return most;
}

export interface CaseInbox {
  url(role: string, rest?: string): string;
  answer(role: string, answer: SinkAnswer): void;
  requests(role?: string): SinkRequest[];
  /** Waits for `count` requests of `role`; a shortfall fails `rule`. */
  arrive(
    rule: string,
    role: string,
    count?: number,
    what?: string,
    afterRetries?: RetriesAsked,
  ): Promise<SinkRequest[]>;
  /**
   * Waits for all of `arrivals` at once, under one deadline; the first one short when it passes
   * fails its rule. Answers the requests of each, in order.
   */
  arriveAll(arrivals: readonly Arrival[]): Promise<SinkRequest[][]>;
  /**
   * Runs `check` on every request of `role` (those so far and each that comes): a CheckFailure it
   * throws ends the case's waits at once (a wrong status, a wrong field: the outcome is certain).
   */
  judge(role: string, check: (request: SinkRequest) => void): void;
  /**
   * Waits for requests of `role` one more at a time until `done` holds for those so far (the last
   * callback of a message, whose count the target decides); a shortfall fails `rule`.
   */
  arriveUntil(
    rule: string,
    role: string,
    done: (requests: readonly SinkRequest[]) => boolean,
    what?: string,
    afterRetries?: RetriesAsked,
  ): Promise<SinkRequest[]>;
  /**
   * Waits while `missing` names a request still to come (its count by default one more than its role
   * has), under one deadline: for an end the target decides (the last callback of a message, a
   * failure callback or a success); when the wait runs out, the one still missing fails its rule.
   */
  until(missing: () => Arrival | undefined): Promise<void>;
  /** Lets requests that must not come have their chance. */
  settle(): Promise<void>;
}

/** The inboxes each case opened, for `signedCases`' verdict at the end of the case. */
const inboxesOf = new WeakMap<CaseContext, CaseInbox[]>();

export async function openInbox(ctx: CaseContext, label: string): Promise<CaseInbox> {
  const sink = await sinkFor(ctx);
  const inbox: Inbox = sink.open(label);
  const started = Date.now();
  const straysBefore = sink.strays().length;
  const waitMs = (ctx.target.sink?.waitSeconds ?? defaultWaitSeconds) * 1000;
  const judges: Array<{ readonly role: string; readonly check: (request: SinkRequest) => void }> = [];
  const judged = new WeakSet<SinkRequest>();
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

  /** The first evidence that decides the case: a signature that failed, a judged request that broke. */
  const evidence = (): Error | undefined => {
    const signature = signatureFailure(inbox.requests());
    if (signature !== undefined) return signature;
    for (const request of inbox.requests()) {
      if (judged.has(request)) continue;
      for (const judge of judges) if (judge.role === request.role) judge.check(request);
      judged.add(request);
    }
    return undefined;
  };

  const arriveAll = async (arrivals: readonly Arrival[]): Promise<SinkRequest[][]> => {
    await waitWhile(() => arrivals.find((item) => inbox.requests(item.role).length < (item.count ?? 1)), arrivals);
    return arrivals.map((item) => inbox.requests(item.role));
  };

  /** Waits while `short` names an arrival still missing; when the wait runs out, that one fails its rule. */
  const waitWhile = async (short: () => Arrival | undefined, arrivals: readonly Arrival[]): Promise<void> => {
    const begun = Date.now();
    const arrivedBefore = Math.max(lastArrivalAt, sink.lastArrivalAt());
    let cutShort: Error | undefined;
    // During a drought, a wait gives up after the grace unless something reaches the sink.
    const droughtTimer = setInterval(() => {
      const last = Math.max(lastArrivalAt, sink.lastArrivalAt());
      if (drought !== undefined && (last > drought.since || drought.target !== droughtKey(ctx))) drought = undefined;
      if (drought !== undefined && Date.now() - begun >= droughtGraceMs && short() !== undefined) {
        const wanted = short() as Arrival;
        const why = `nothing has reached the sink since ${drought.label} waited ${drought.seconds} s for a request that never came: the target delivers nothing`;
        cutShort =
          wanted.rule === 'A.publish.delivers'
            ? new CheckFailure('A.publish.delivers', `no request (${why})`, 'a delivery', wanted.what ?? wanted.role)
            : new Blocked('A.publish.delivers', `${wanted.what ?? wanted.role}: ${why}`);
        inbox.recheck();
      }
    }, 250);
    try {
      await inbox.waitUntil(
        () => short() === undefined,
        waitMs,
        () => {
          const wanted = short() as Arrival;
          const got = inbox.requests(wanted.role).length;
          const count = wanted.count ?? 1;
          const seconds = Math.round(waitMs / 100) / 10;
          // The wait is the sink's (sink.waitSeconds, --sink-wait): the spec sets no bound, so a
          // slower target declares a longer one.
          return count === 1 || got === 0
            ? `never arrived within ${seconds} s, the sink's wait`
            : `${got} of ${count} arrived within ${seconds} s, the sink's wait`;
        },
        ctx.signal,
        () => cutShort ?? evidence(),
      );
    } catch (error) {
      if (!(error instanceof SinkTimeout)) throw error;
      const wanted = short() ?? (arrivals[0] as Arrival);
      const last = Math.max(lastArrivalAt, sink.lastArrivalAt());
      if (inbox.requests().length === 0 && last <= arrivedBefore && !ctx.signal?.aborted) {
        drought = {
          target: droughtKey(ctx),
          since: Date.now(),
          label: `case ${label}`,
          seconds: Math.round(waitMs / 1000),
        };
      }
      const got = inbox.requests(wanted.role).length;
      const count = wanted.count ?? 1;
      const retries = wanted.afterRetries;
      const attempts = retries === undefined ? 0 : inbox.requests(retries.role).length;
      const announced = announcedRetries((retries?.callbacks ?? []).flatMap((role) => inbox.requests(role)));
      if (retries !== undefined && (attempts > retries.asked + 1 || announced > retries.asked)) {
        ctx.skip(
          `${wanted.what ?? wanted.role} waits for the message's retries to end, and the target makes its own (${attempts} attempts so far, ${retries.asked + 1} asked${announced > retries.asked ? `, maxRetries ${announced} in its callbacks` : ''}; Svc-Retries is not in the spec): they did not end within the sink's wait (${error.message}).`,
        );
      }
      throw new CheckFailure(
        wanted.rule,
        `${got} request${got === 1 ? '' : 's'} (${error.message})`,
        `${count} request${count === 1 ? '' : 's'}`,
        wanted.what ?? wanted.role,
      );
    } finally {
      clearInterval(droughtTimer);
    }
  };

  const caseInbox: CaseInbox = {
    url: (role, rest) => inbox.url(role, rest),
    answer: (role, answer) => inbox.answer(role, answer),
    requests: (role) => inbox.requests(role),
    async arrive(rule, role, count = 1, what = role, afterRetries) {
      const [requests] = await arriveAll([{ rule, role, count, what, ...(afterRetries && { afterRetries }) }]);
      return requests ?? [];
    },
    arriveAll,
    async arriveUntil(rule, role, done, what = role, afterRetries) {
      let requests = inbox.requests(role);
      while (!done(requests)) {
        const count = requests.length + 1;
        [requests = []] = await arriveAll([{ rule, role, count, what, ...(afterRetries && { afterRetries }) }]);
      }
      return requests;
    },
    async until(missing) {
      const short = () => {
        const wanted = missing();
        if (wanted === undefined) return undefined;
        return { ...wanted, count: wanted.count ?? inbox.requests(wanted.role).length + 1 };
      };
      const first = short();
      if (first !== undefined) await waitWhile(short, [first]);
    },
    judge(role, check) {
      judges.push({ role, check });
      for (const request of inbox.requests(role)) if (judged.has(request)) check(request);
    },
    async settle() {
      await inbox.settle(settleMs, ctx.signal);
      const early = evidence();
      if (early !== undefined) throw early;
    },
  };
  inboxesOf.set(ctx, [...(inboxesOf.get(ctx) ?? []), caseInbox]);
  return caseInbox;
}

const observeOnly = new Set(messagingRuleCatalog.filter((rule) => rule.level === 'OBSERVE').map((rule) => rule.id));

/**
 * Every case of a messaging file that receives requests: its verdict covers the signature of each
 * request its inboxes got (A.signature.verifiable joins its rules). A case that failed its own rule
 * keeps that verdict; one that passed, or was blocked on a means, fails on a signature the sink could
 * not verify. Cases that only observe are left as they are (a signature there stays a note).
 */
export function signedCases<const T extends readonly ConformanceCase[]>(cases: T): T {
  return cases.map((item): ConformanceCase => {
    if (item.rules.every((rule) => observeOnly.has(rule))) return item;
    const rules = item.rules.includes(signatureRule) ? item.rules : [...item.rules, signatureRule];
    return {
      ...item,
      rules,
      async run(ctx) {
        const failed = () => signatureFailure((inboxesOf.get(ctx) ?? []).flatMap((inbox) => inbox.requests()));
        try {
          await item.run(ctx);
        } catch (error) {
          const signature = error instanceof CheckFailure || error instanceof CaseSkipped ? undefined : failed();
          throw signature ?? error;
        }
        const signature = failed();
        if (signature !== undefined) throw signature;
      },
    };
  }) as unknown as T;
}
