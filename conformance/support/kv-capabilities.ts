/**
 * What a key-value case rests on, declared as data and checked first (issue 35, house style 17): the
 * capabilities other rules judge (the plainest form, replies not encoded unasked, a route, percent-
 * decoding, scripting, an event stream). Each has a positive control, one request that a conforming
 * target answers in one way only; when it fails, the case is blocked on that capability's rule
 * (`Blocked`, whose verdict names that rule), so only the dependency's own case fails.
 *
 * Nothing is cached: a probe is one request, and a case's verdict must not depend on which cases ran
 * before it (a probe remembered from a moment the target was reset would block cases that could run).
 *
 * The engine has `needs` for what a target declares; a `requires` beside it (capability ids with their
 * rules, probed by the engine before `run`, the block reported as the root cause) would let every area
 * declare this in the case object itself. Until then `requiring` wraps a case's run.
 */
import {
  Blocked,
  type CaseContext,
  type ConformanceCase,
  fromBase64,
  type HttpResponse,
  jsonBody,
  show,
  subscribePath,
  toBase64,
} from '../../src/suite-kit/suite-api.ts';
import { isRecord, mediaType } from './kv-checks.ts';
import { createKvClient, type KvClient } from './kv-client.ts';
import { openKvStream } from './kv-streams.ts';

export type KvCapability =
  | 'standard-token'
  | 'json-answers'
  | 'plain-replies'
  | 'root-form'
  | 'path-form'
  | 'percent-decoding'
  | 'pipeline'
  | 'multi-exec'
  | 'scripting'
  | 'base64'
  | 'resp2'
  | 'monitor-stream'
  | 'subscribe-stream';

interface CapabilityProbe {
  /** The rule that judges the capability: a case resting on it is blocked on this rule. */
  readonly rule: string;
  /** Capabilities probed before this one (a path with a percent-escape needs the path form first). */
  readonly after?: readonly KvCapability[];
  /** Undefined when the capability is there; otherwise what the target answered. */
  probe(ctx: CaseContext, kv: KvClient): Promise<string | undefined>;
}

const text = 'svc probe';

/**
 * Every probe sends the Standard token by header (the client's default): a 401 to it is no missing
 * form or capability but that token refused, so the block names B.auth.bearer (kv.auth.bearer's own).
 */
const tokenRefused = 'the Standard token by header was refused: status 401';

/** `{"result": value}` exactly, status 200; else a short description of the answer. */
function resultIs(res: HttpResponse, value: unknown): string | undefined {
  if (res.status === 401) return tokenRefused;
  const body = jsonBody(res);
  if (res.status === 200 && isRecord(body) && Object.keys(body).length === 1 && body.result === value) return undefined;
  return `status ${res.status}, ${mediaType(res) ?? 'no content type'}, ${show(res.body, 80)}`;
}

/** One `{"result": value}` item, status 200. */
function itemIs(res: HttpResponse, value: unknown): string | undefined {
  if (res.status === 401) return tokenRefused;
  const body = jsonBody(res);
  const [item] = Array.isArray(body) ? body : [];
  if (res.status === 200 && Array.isArray(body) && body.length === 1 && isRecord(item) && item.result === value)
    return undefined;
  return `status ${res.status}, ${mediaType(res) ?? 'no content type'}, ${show(res.body, 80)}`;
}

const probes: Record<KvCapability, CapabilityProbe> = {
  // The Standard token by header, which every request of a case sends unless it says otherwise.
  'standard-token': {
    rule: 'B.auth.bearer',
    async probe(_ctx, kv) {
      const res = await kv.root(['ECHO', text]);
      return res.status === 401 ? tokenRefused : undefined;
    },
  },
  // Spec "What the service does": area B "returns JSON by default". An answer that is no JSON (HTML a
  // proxy sent, labelled JSON or not) fails every form's comparison on the comparing case's rule; the
  // format's rule is what broke. The cases judging B.format.json themselves rest on nothing but the token.
  'json-answers': {
    rule: 'B.format.json',
    after: ['standard-token'],
    async probe(_ctx, kv) {
      const res = await kv.root(['ECHO', text]);
      if (res.status >= 500 || jsonBody(res) !== undefined) return undefined;
      return `POST / ["ECHO", ${JSON.stringify(text)}]: status ${res.status}, ${mediaType(res) ?? 'no content type'}, no JSON: ${show(res.body, 80)}`;
    },
  },
  // Spec "Svc-Encoding": strings are base64 only when it is asked for. A reply encoded unasked makes
  // every comparison of a result fail on the comparing case's rule; the encoding's rule is what broke.
  'plain-replies': {
    rule: 'B.encoding.base64',
    after: ['standard-token'],
    async probe(_ctx, kv) {
      const res = await kv.root(['ECHO', text]);
      const body = jsonBody(res);
      const result = isRecord(body) ? body.result : undefined;
      if (typeof result === 'string' && result !== text && result === toBase64(Buffer.from(text)))
        return `ECHO ${JSON.stringify(text)} without Svc-Encoding answered ${show(result)}, its base64`;
      return undefined;
    },
  },
  'root-form': {
    rule: 'B.root.json-array',
    after: ['plain-replies', 'json-answers'],
    async probe(_ctx, kv) {
      const wrong = resultIs(await kv.root(['ECHO', text]), text);
      return wrong && `POST / ["ECHO", ${JSON.stringify(text)}]: ${wrong}`;
    },
  },
  'path-form': {
    rule: 'B.methods.allowed',
    after: ['plain-replies', 'json-answers'],
    async probe(_ctx, kv) {
      const wrong = resultIs(await kv.path('GET', ['echo', 'svc']), 'svc');
      return wrong && `GET /echo/svc: ${wrong}`;
    },
  },
  // Keys of every case hold `:` (svch:<run>:<case>:…), sent in a path as %3A: a target that does not
  // percent-decode stores and reads other keys than POST / does, and every path case compares wrong.
  // Only where the path form runs at all: a target without it has cases that leave the form out (its
  // absence is B.methods.allowed's, probed by 'path-form' for the cases that need the form itself).
  'percent-decoding': {
    rule: 'B.path.percent-decoding',
    after: ['plain-replies', 'json-answers'],
    async probe(ctx, kv) {
      if (resultIs(await kv.path('GET', ['echo', 'svc']), 'svc') !== undefined) return undefined;
      const decoded = `${ctx.keyPrefix}a b`;
      const wrong = resultIs(await kv.path('GET', ['echo', decoded]), decoded);
      return wrong && `GET /echo/${encodeURIComponent(decoded)}: ${wrong}`;
    },
  },
  pipeline: {
    rule: 'B.pipeline.order',
    after: ['plain-replies', 'json-answers'],
    async probe(_ctx, kv) {
      const wrong = itemIs(await kv.pipeline([['ECHO', text]]), text);
      return wrong && `POST /pipeline [["ECHO", …]]: ${wrong}`;
    },
  },
  'multi-exec': {
    rule: 'B.multi-exec.results',
    after: ['plain-replies', 'json-answers'],
    async probe(_ctx, kv) {
      const wrong = itemIs(await kv.multiExec([['ECHO', text]]), text);
      return wrong && `POST /multi-exec [["ECHO", …]]: ${wrong}`;
    },
  },
  // Spec rule 5: the scripting group is supported. A case reading shapes through EVAL rests on it.
  scripting: {
    rule: 'B.commands.supported-groups',
    after: ['root-form'],
    async probe(_ctx, kv) {
      const wrong = resultIs(await kv.root(['EVAL', `return '${text}'`, '0']), text);
      return wrong && `EVAL "return '${text}'" 0: ${wrong}`;
    },
  },
  base64: {
    rule: 'B.encoding.base64',
    after: ['root-form'],
    async probe(_ctx, kv) {
      const res = await kv.root(['ECHO', text], { encoding: 'base64' });
      const body = jsonBody(res);
      const result = isRecord(body) ? body.result : undefined;
      const decoded = typeof result === 'string' ? fromBase64(result) : undefined;
      if (res.status === 200 && decoded !== undefined && Buffer.from(decoded).toString('utf8') === text)
        return undefined;
      return `ECHO with Svc-Encoding: base64: status ${res.status}, ${show(res.body, 80)}`;
    },
  },
  resp2: {
    rule: 'B.format.resp2',
    after: ['root-form'],
    async probe(_ctx, kv) {
      const res = await kv.root(['ECHO', text], { format: 'resp2' });
      const want = Buffer.from(`$${text.length}\r\n${text}\r\n`);
      if (res.status === 200 && mediaType(res) === 'application/octet-stream' && res.body.equals(want))
        return undefined;
      return `ECHO with Svc-Response-Format: resp2: status ${res.status}, ${mediaType(res) ?? 'no content type'}, ${show(res.body, 80)}`;
    },
  },
  // An event stream is status 200 and text/event-stream: a 200 with JSON is no stream.
  'monitor-stream': {
    rule: 'B.monitor.first-ok',
    after: ['standard-token'],
    async probe(ctx, kv) {
      const stream = await openKvStream(ctx, kv, '/monitor');
      try {
        const type = mediaType(stream) ?? 'no content type';
        if (stream.status === 200 && type === 'text/event-stream') return undefined;
        return `POST /monitor: status ${stream.status}, ${type}`;
      } finally {
        stream.close();
      }
    },
  },
  'subscribe-stream': {
    rule: 'B.subscribe.subscribe-event',
    after: ['standard-token'],
    async probe(ctx, kv) {
      const stream = await openKvStream(ctx, kv, subscribePath(`${ctx.keyPrefix}probe`));
      try {
        const type = mediaType(stream) ?? 'no content type';
        if (stream.status === 200 && type === 'text/event-stream') return undefined;
        return `POST /subscribe/…: status ${stream.status}, ${type}`;
      } finally {
        stream.close();
      }
    },
  },
};

/**
 * After a case judged every source it could: the ones it left out, because the target lacks their form
 * (its own case fails it), block the case on that form's rule. The rest were judged first, so a true
 * failure among them is never lost to a missing neighbour.
 */
export function blockOnLeftOut(leftOut: readonly { readonly what: string; readonly rule: string }[]): void {
  const [first] = leftOut;
  if (first === undefined) return;
  const names = leftOut.map(({ what }) => what).join(', ');
  throw new Blocked(first.rule, `the other sources hold; not judged: ${names}, a form the target does not run`);
}

/** The capabilities in the order they are probed: each after those it rests on. */
function ordered(capabilities: readonly KvCapability[]): KvCapability[] {
  const out: KvCapability[] = [];
  const visit = (capability: KvCapability) => {
    if (out.includes(capability)) return;
    for (const before of probes[capability].after ?? []) visit(before);
    out.push(capability);
  };
  for (const capability of capabilities) visit(capability);
  return out;
}

/** Probes each capability (and those it rests on) in turn; the first missing one blocks the case on its rule. */
export async function requireCapabilities(
  ctx: CaseContext,
  kv: KvClient,
  capabilities: readonly KvCapability[],
): Promise<void> {
  for (const capability of ordered(capabilities)) {
    const { probe } = probes[capability];
    const missing = await probe(ctx, kv);
    if (missing === undefined) continue;
    const rule = missing.includes(tokenRefused) ? 'B.auth.bearer' : probes[capability].rule;
    throw new Blocked(rule, `it rests on ${capability}, which did not work: ${missing}`);
  }
}

/**
 * A case whose run first checks the capabilities it rests on. Data beside `rules` and `covers`: the
 * capability's own case (the one that judges its rule) must not require it, or it would block itself.
 */
export function requiring<T extends ConformanceCase>(capabilities: readonly KvCapability[], testCase: T): T {
  return {
    ...testCase,
    async run(ctx: CaseContext) {
      await requireCapabilities(ctx, createKvClient(ctx), capabilities);
      await testCase.run(ctx);
    },
  };
}

/**
 * What each case of a file rests on, as a table beside its cases: a case id's own list, else `'*'`'s.
 * A case judging a capability's own rule lists none of it (`[]` when the default would).
 */
export type Requirements = Readonly<Record<string, readonly KvCapability[]>>;

export function withRequirements<T extends readonly ConformanceCase[]>(requirements: Requirements, cases: T): T {
  const ids = new Set(cases.map((item) => item.id));
  const unknown = Object.keys(requirements).filter((id) => id !== '*' && !ids.has(id));
  // A table row for a case that does not exist would silently require nothing: a defect of the file.
  if (unknown.length > 0) throw new Error(`requirements for unknown cases: ${unknown.join(', ')}`);
  return cases.map((item) => {
    const capabilities = requirements[item.id] ?? requirements['*'] ?? [];
    return capabilities.length === 0 ? item : requiring(capabilities, item);
  }) as unknown as T;
}
