/**
 * Spec "Signing keys (area A)" and "Authentication": the rotate operation answers the current and
 * next keys as strings, and a rotation makes the previous next key current. Its status is not shown.
 * Rotating changes a shared target's keys: receivers that verify signatures must read them again.
 */
import { type CaseContext, CheckFailure, defineCases, show } from '../../src/suite-kit/suite-api.ts';
import { isRecord, jsonOf } from '../support/messaging-checks.ts';
import { createMessagingClient } from '../support/messaging-client.ts';

interface Keys {
  readonly current: string;
  readonly next: string;
}

async function rotate(ctx: CaseContext, label: string): Promise<Keys> {
  const client = createMessagingClient(ctx);
  const res = await client.call('/v2/keys/rotate');
  ctx.observe(`rotate answered status ${res.status}`);
  const body = jsonOf('A.keys.rotate-shape', res, label);
  if (!isRecord(body) || typeof body.current !== 'string' || typeof body.next !== 'string') {
    const fields = isRecord(body)
      ? Object.fromEntries(Object.entries(body).map(([name, value]) => [name, typeof value]))
      : body;
    throw new CheckFailure(
      'A.keys.rotate-shape',
      `${show(fields)} (field types)`,
      '{"current": string, "next": string}',
      label,
    );
  }
  return { current: body.current, next: body.next };
}

export const cases = defineCases([
  {
    id: 'messaging.keys.rotate',
    rules: ['A.keys.rotate-shape', 'A.keys.rotate-promotes-next', 'A.keys.rotate-status'],
    title: 'Rotating the signing keys answers current and next, and promotes next',
    expect:
      'Two rotations in a row: each answers {"current", "next"} as strings; the second’s current is the first’s next, and its next is new.',
    async run(ctx) {
      const first = await rotate(ctx, 'the first rotation');
      const second = await rotate(ctx, 'the second rotation');
      if (second.current !== first.next) {
        throw new CheckFailure(
          'A.keys.rotate-promotes-next',
          'current is not the previous next key',
          'the previous next key as current',
        );
      }
      if (second.next === first.next || second.next === first.current) {
        throw new CheckFailure('A.keys.rotate-promotes-next', 'next is a key issued before', 'a new next key');
      }
    },
  },
]);
