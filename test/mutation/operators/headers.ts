/**
 * Headers: one dropped or renamed (`x-<name>`), or the content type swapped between JSON, bytes and
 * text. On the front side the answer's headers change, and a vendor header of the request is dropped
 * before it reaches the target (the target ignoring it); on the delivery side the request the target
 * sends to the sink changes.
 */
import type { Exchange, Headers, Message, ResponseMessage } from '../exchange.ts';
import { contentType } from '../exchange.ts';
import type { Operator, OperatorFamily, RequestOutcome } from '../operator.ts';

/** Transport headers: changing them breaks HTTP itself, not the service. */
const transport = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'date', 'host']);

function without(headers: Headers, name: string): Headers {
  const out: Headers = { ...headers };
  delete out[name];
  return out;
}

function renamed(headers: Headers, name: string): Headers {
  const out = without(headers, name);
  out[`x-${name}`] = headers[name] as string;
  return out;
}

/** The side's message whose headers an operator changes: the answer in front, the request behind. */
function changedMessage(exchange: Exchange): Message {
  return exchange.side === 'front' ? exchange.response : exchange.request;
}

function headerOperator(id: string, what: string, change: (headers: Headers) => Headers | undefined): Operator {
  return {
    id,
    family: 'headers',
    sides: ['front', 'delivery'],
    what,
    response(response, _request, side): ResponseMessage | undefined {
      if (side !== 'front') return undefined;
      const headers = change(response.headers);
      return headers ? { ...response, headers } : undefined;
    },
    async request(request, context): Promise<RequestOutcome | undefined> {
      if (context.side !== 'delivery') return undefined;
      const headers = change(request.headers);
      return headers ? { request: { ...request, headers } } : undefined;
    },
  };
}

const typeSwaps: readonly (readonly [string, string])[] = [
  ['application/json', 'application/octet-stream'],
  ['application/json', 'text/plain'],
  ['application/octet-stream', 'application/json'],
  ['text/plain', 'application/json'],
];

export const contentTypeOperators: readonly Operator[] = typeSwaps.map(([from, to]) =>
  headerOperator(
    `headers.content-type:${from.split('/')[1]}-to-${to.split('/')[1]}`,
    `content type ${from} sent as ${to}`,
    (headers) =>
      contentType({ headers, body: Buffer.alloc(0) }) === from ? { ...headers, 'content-type': to } : undefined,
  ),
);

function names(exchange: Exchange): string[] {
  return Object.keys(changedMessage(exchange).headers).filter((name) => !transport.has(name));
}

export const headerDropped: OperatorFamily = {
  base: 'headers.dropped',
  params: names,
  make: (name) =>
    headerOperator(`headers.dropped:${name}`, `header ${name} left out`, (headers) =>
      name in headers ? without(headers, name) : undefined,
    ),
};

export const headerRenamed: OperatorFamily = {
  base: 'headers.renamed',
  params: names,
  make: (name) =>
    headerOperator(`headers.renamed:${name}`, `header ${name} sent as x-${name}`, (headers) =>
      name in headers ? renamed(headers, name) : undefined,
    ),
};

/** The vendor headers of a request (`svc-…`, `upstash-…`) and its content type; never credentials. */
function requestNames(exchange: Exchange): string[] {
  if (exchange.side !== 'front') return [];
  return Object.keys(exchange.request.headers).filter(
    (name) => name === 'content-type' || /^(svc|upstash)-/.test(name),
  );
}

export const requestHeaderIgnored: OperatorFamily = {
  base: 'headers.request-ignored',
  params: requestNames,
  make: (name) => ({
    id: `headers.request-ignored:${name}`,
    family: 'headers',
    sides: ['front'],
    what: `the target ignores the request header ${name}`,
    async request(request) {
      return name in request.headers ? { request: { ...request, headers: without(request.headers, name) } } : undefined;
    },
  }),
};
