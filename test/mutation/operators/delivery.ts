/**
 * The delivery side (the target calling the sink): deliveries dropped (the target is told 200, the
 * sink sees nothing), duplicated or delayed; the signature's claims changed (`exp` past, another `sub`,
 * another `body`) and re-signed with the target's key; the signature's bytes broken; a retry reusing the
 * first attempt's signature. Callback fields off by one or of the wrong type are JSON operators.
 */
import { createHash } from 'node:crypto';
import type { RequestMessage } from '../exchange.ts';
import type { MutationContext, Operator, RequestOutcome } from '../operator.ts';
import { claimsOf, resigned, signatureHeader } from './signature.ts';

/** How long a delayed delivery is held: longer than a quick receiver's patience, well inside a case's wait. */
export const delayMs = 1_000;

function deliveryOperator(
  id: string,
  what: string,
  change: (request: RequestMessage, context: MutationContext) => Promise<RequestOutcome | undefined>,
): Operator {
  return { id, family: 'delivery', sides: ['delivery'], what, request: change };
}

function header(request: RequestMessage, suffix: string): string | undefined {
  const name = Object.keys(request.headers).find((key) => key.endsWith(suffix));
  return name ? request.headers[name] : undefined;
}

/** Seconds the real backoff waits before attempt `retried` (about e^(2.5·n) s each, at most a day). */
function realBackoffSeconds(retried: number): number {
  let total = 0;
  for (let n = 1; n <= retried; n++) total += Math.min(86_400, Math.exp(2.5 * n));
  return total;
}

export const deliveryOperators: readonly Operator[] = [
  deliveryOperator(
    'delivery.dropped',
    'the delivery never reaches the receiver (the target is told 200)',
    async (request) => ({
      request,
      action: 'drop',
    }),
  ),
  deliveryOperator('delivery.duplicated', 'the delivery sent twice', async (request) => ({
    request,
    action: 'duplicate',
  })),
  deliveryOperator('delivery.delayed', `the delivery held for ${delayMs} ms`, async (request) => ({
    request,
    action: 'delay',
  })),
  deliveryOperator('signature.exp-past', 'signed with an exp already past', async (request, context) => {
    const now = Math.floor(Date.now() / 1000);
    const changed = await resigned(request, context, (claims) => ({
      ...claims,
      iat: now - 400,
      nbf: now - 400,
      exp: now - 100,
    }));
    return changed && { request: changed };
  }),
  deliveryOperator('signature.sub-changed', 'signed with another URL as sub', async (request, context) => {
    const changed = await resigned(request, context, (claims) => ({
      ...claims,
      sub: `${String(claims.sub ?? '')}/other`,
    }));
    return changed && { request: changed };
  }),
  deliveryOperator('signature.body-changed', "signed with another body's hash", async (request, context) => {
    const other = createHash('sha256')
      .update(Buffer.concat([request.body, Buffer.from('x')]))
      .digest('base64url');
    const changed = await resigned(request, context, (claims) => ({ ...claims, body: other }));
    return changed && { request: changed };
  }),
  deliveryOperator('signature.bytes-changed', "the signature's last characters changed", async (request) => {
    const name = signatureHeader(request.headers);
    const token = name ? request.headers[name] : undefined;
    if (!name || !token || claimsOf(token) === undefined) return undefined;
    const last = token.slice(-4);
    const flipped = last === 'AAAA' ? 'BBBB' : 'AAAA';
    return { request: { ...request, headers: { ...request.headers, [name]: `${token.slice(0, -4)}${flipped}` } } };
  }),
  deliveryOperator(
    'signature.stale-on-retry',
    "a retry carries the first attempt's signature, past its exp (the real backoff reaches 300 s by the third retry)",
    async (request, context) => {
      const name = signatureHeader(request.headers);
      const id = header(request, '-message-id');
      const retried = Number(header(request, '-retried') ?? '0');
      const token = name ? request.headers[name] : undefined;
      if (!name || !token || id === undefined) return undefined;
      const key = `${id} ${request.path.split('?')[0]}`;
      const first = context.memory.get(key);
      if (first === undefined || retried === 0) {
        context.memory.set(key, token);
        // The dry run over a clean record: a first attempt counts when the message was retried at all.
        return undefined;
      }
      // The suites retry at most once or twice with a short backoff; the real backoff makes the first
      // token expire by the third retry (12 + 148 + 1808 s), which is the bug this stands for.
      const aged = Math.max(realBackoffSeconds(retried), realBackoffSeconds(3));
      const changed = await resigned(
        { ...request, headers: { ...request.headers, [name]: first } },
        context,
        (claims) => ({
          ...claims,
          iat: Number(claims.iat ?? 0) - aged,
          nbf: Number(claims.nbf ?? 0) - aged,
          exp: Number(claims.exp ?? 0) - aged,
        }),
      );
      return changed && { request: changed };
    },
  ),
];
