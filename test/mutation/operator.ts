/**
 * An operator changes one kind of thing in an exchange, knowing nothing of the cases: a status, a
 * header, a JSON value, an SSE event, a credential, a delivery. It acts in one phase (the request on
 * its way to the upstream, the buffered answer, or each event of a stream) and returns undefined where
 * it does not apply, so the proxy counts a firing only when something really changed.
 */
import type { Area, Exchange, RequestMessage, ResponseMessage, Side } from './exchange.ts';

export type Family = 'status' | 'headers' | 'json' | 'sse' | 'auth' | 'delivery';
export const families: readonly Family[] = ['status', 'headers', 'json', 'sse', 'auth', 'delivery'];

/** The target's credentials, so auth operators can put the standard ones where others were. */
export interface TargetCredentials {
  readonly kv?: { readonly token: string; readonly readOnlyToken?: string };
  readonly messaging?: { readonly token: string };
  readonly management?: { readonly username: string; readonly password: string };
}

export interface MutationContext {
  readonly area: Area;
  readonly side: Side;
  readonly credentials: TargetCredentials;
  /** The target's signing keys now (delivery side; the reference's admin hook). */
  signingKeys(): Promise<readonly string[]>;
  /** Memory of one mutant across exchanges (a message's first signature). */
  readonly memory: Map<string, string>;
}

/** What to do with a request: forward it changed, or drop, duplicate or delay it. */
export interface RequestOutcome {
  readonly request: RequestMessage;
  readonly action?: 'drop' | 'duplicate' | 'delay';
}

/** A stateful change of one SSE stream: each complete event in, the events to send out. */
export interface SseMutator {
  event(event: string): string[];
  end(): string[];
}

export interface Operator {
  /** `status.2xx-to-500`, `json.field-dropped:messageId`. */
  readonly id: string;
  readonly family: Family;
  readonly sides: readonly Side[];
  /** One line: what the mutant does. */
  readonly what: string;
  request?(request: RequestMessage, context: MutationContext): Promise<RequestOutcome | undefined>;
  response?(response: ResponseMessage, request: RequestMessage, side: Side): ResponseMessage | undefined;
  sse?(): SseMutator;
}

/** Operators with a parameter taken from a clean run: a field name, a header name, a depth. */
export interface OperatorFamily {
  readonly base: string;
  /** The parameters this exchange offers. */
  params(exchange: Exchange): readonly string[];
  make(param: string): Operator;
}

/** Feeds recorded events through a stream mutator; undefined when nothing changed. */
export function mutateEvents(mutator: SseMutator, events: readonly string[]): string[] | undefined {
  const out = events.flatMap((event) => mutator.event(event));
  out.push(...mutator.end());
  const same = out.length === events.length && out.every((event, index) => event === events[index]);
  return same ? undefined : out;
}

/** Whether an operator can change this recorded exchange (a dry run of its phase). */
export async function appliesTo(operator: Operator, exchange: Exchange, context: MutationContext): Promise<boolean> {
  if (!operator.sides.includes(exchange.side)) return false;
  if (operator.sse) return exchange.events !== undefined && mutateEvents(operator.sse(), exchange.events) !== undefined;
  if (operator.request && (await operator.request(exchange.request, context)) !== undefined) return true;
  return (
    operator.response !== undefined &&
    exchange.events === undefined &&
    operator.response(exchange.response, exchange.request, exchange.side) !== undefined
  );
}
