/**
 * Spec "What the service does" and "Endpoints > Area A": an accepted message is delivered to its
 * destination with its body, signed so a receiver can verify it; paths carry /v2/; the plan's
 * maximum message size holds. The publish answer and the other publish headers are not shown:
 * they are observed.
 */
import { defineCases, means, show, signatureSchemeOf } from '../../src/suite-kit/suite-api.ts';
import { cover } from '../rules/dimensions.ts';
import { signingKeysOf } from '../support/messaging-adapter.ts';
import { checkThat, describe, endsMessage } from '../support/messaging-checks.ts';
import { createMessagingClient } from '../support/messaging-client.ts';
import { openInbox, signedCases } from '../support/messaging-sink.ts';
import { publishTo, uniqueId, withAccountLimits } from '../support/messaging-steps.ts';

export const cases = defineCases(
  signedCases([
    {
      id: 'messaging.publish.delivers',
      concurrent: true,
      rules: ['A.publish.delivers'],
      title: 'A published message is delivered to its destination with its body',
      expect:
        'Messages published to sink URLs arrive there, each with the bytes published: text, JSON (its spacing and order too) and bytes that are not UTF-8.',
      async run(ctx) {
        const client = createMessagingClient(ctx);
        const inbox = await openInbox(ctx, 'publish.delivers');
        const id = uniqueId(ctx, 'body');
        // "With its body": the bytes, whatever the content type says. A service that parses a JSON body
        // and writes it again, or decodes bytes as text, changes them.
        const bodies = [
          { path: 'dest', contentType: 'text/plain', body: Buffer.from(`payload ${id}`) },
          {
            path: 'json',
            contentType: 'application/json',
            body: Buffer.from(`{"z":1, "a":[true,null,1.50],"id":"${id}","e":"\\u00e9"}`),
          },
          {
            path: 'bytes',
            contentType: 'application/octet-stream',
            body: Buffer.concat([Buffer.from([0, 0xff, 0xfe, 0x80, 0xc3, 0x28, 10, 13]), Buffer.from(id)]),
          },
        ];
        // The text message is the case's precondition (refused, it blocks the case). The spec shows no
        // payload rules, so a JSON or binary message refused is recorded: only an accepted one must arrive.
        const accepted = await Promise.all(
          bodies.map(async (item, index) => {
            const headers = { 'content-type': item.contentType };
            if (index === 0) {
              await publishTo(client, inbox.url(item.path), headers, item.body);
              return true;
            }
            const res = await client.call(`/v2/publish/${inbox.url(item.path)}`, { headers, body: item.body });
            if (res.status >= 200 && res.status <= 299) return true;
            ctx.observe(`a ${item.contentType} message was refused: ${describe(res)}`);
            return false;
          }),
        );
        for (const item of bodies.filter((_item, index) => accepted[index])) {
          const [got] = await inbox.arrive('A.publish.delivers', item.path);
          checkThat(
            'A.publish.delivers',
            got?.body.equals(item.body) === true,
            `${item.contentType}: body ${got === undefined ? 'none' : show(got.body)}`,
            `${item.contentType}: body ${show(item.body)}`,
          );
        }
      },
    },
    {
      id: 'messaging.publish.response-shape',
      concurrent: true,
      rules: ['A.publish.response-shape'],
      title: 'The publish answer (not shown by the spec)',
      expect: 'Observed: the status and body of a publish.',
      async run(ctx) {
        const client = createMessagingClient(ctx);
        const inbox = await openInbox(ctx, 'publish.response-shape');
        const res = await client.call(`/v2/publish/${inbox.url('dest')}`, { body: 'x' });
        ctx.observe(`publish: ${describe(res).replace(/"messageId":"[^"]+"/, '"messageId":"…"')}`);
        await inbox.arrive('A.publish.response-shape', 'dest').catch(() => ctx.observe('the message did not arrive'));
      },
    },
    {
      id: 'messaging.publish.headers',
      concurrent: true,
      // A.publish.delivers: whatever those headers do, the message still arrives with its body.
      rules: ['A.publish.headers', 'A.publish.delivers'],
      title: 'The real service’s publish headers (not shown by the spec)',
      expect:
        'Observed: whether -Method, -Forward-<Name> and the content type reach the destination; the body arrives as published.',
      async run(ctx) {
        const client = createMessagingClient(ctx);
        const inbox = await openInbox(ctx, 'publish.headers');
        const published = '{"a":1}';
        await publishTo(
          client,
          inbox.url('dest'),
          {
            [client.h('Method')]: 'PUT',
            [client.h('Forward-X-Svc-Harness')]: 'forwarded',
            'content-type': 'application/json',
          },
          published,
        );
        const [got] = await inbox.arrive('A.publish.headers', 'dest');
        ctx.observe(
          `method ${got?.method}; X-Svc-Harness ${JSON.stringify(got?.headers['x-svc-harness'] ?? null)}; content type ${JSON.stringify(got?.headers['content-type'] ?? null)}`,
        );
        const body = got?.body.toString('utf8');
        checkThat('A.publish.delivers', body === published, `body ${show(body)}`, `body ${show(published)}`);
      },
    },
    {
      id: 'messaging.signature.verifiable',
      concurrent: true,
      rules: ['A.signature.verifiable'],
      covers: [
        cover('A.signature.verifiable', { 'delivery-kind': ['delivery', 'callback'], 'send-form': ['publish'] }),
      ],
      title: 'Deliveries, retries and callbacks carry a signature the signing keys verify',
      expect:
        'Under the scheme the target declares (by default its dialect’s: a JWT, HS256, in the signature header): a delivery answered 500, its retry (how many retries it gets is the target’s: Svc-Retries is not in the spec) and the callback after each attempt all carry a signature the current or next signing key verifies, for the URL called and the body sent (a token re-sent on a retry is recorded, not refused: jti is optional).',
      async run(ctx) {
        const scheme = signatureSchemeOf(ctx.target);
        if (scheme.scheme === 'none')
          ctx.skip('the target declares no signature scheme (messaging.signature.scheme none).');
        const keys = await signingKeysOf(ctx);
        if (keys === undefined) ctx.skip('the target gives no signing keys (messaging.signingKeys, or an adapter).');
        const client = createMessagingClient(ctx);
        const inbox = await openInbox(ctx, 'signature');
        inbox.answer('dest', { failFirst: 1 });
        await publishTo(
          client,
          inbox.url('dest'),
          { [client.h('Retries')]: '1', [client.h('Callback')]: inbox.url('callback') },
          `signed ${uniqueId(ctx, 'body')}`,
        );
        // A request whose signature fails ends a wait at once, failing A.signature.verifiable. The
        // requests are the means (their own rules judge a shortfall); a callback follows each attempt,
        // up to the one that ends the message (the 200, or the target's retries spent).
        await means(() => inbox.arrive('A.publish.delivers', 'dest', 1, 'the first attempt'));
        await means(() =>
          inbox.arriveUntil(
            'A.callback.on-answer',
            'callback',
            (got) => got.some(endsMessage),
            'a callback per attempt',
          ),
        );
        const deliveries = inbox.requests('dest');
        if (deliveries.length < 2)
          ctx.observe('the delivery answered 500 was not retried: no retry’s signature judged');
        for (const got of [...deliveries, ...inbox.requests('callback')]) {
          const check = got.signature;
          checkThat(
            'A.signature.verifiable',
            check.ok === true,
            check.ok === false ? check.problem : check.ok === true ? '' : `not checked: ${check.reason}`,
            'a signature verified by the current or next key',
            `the ${got.role} request`,
          );
        }
      },
    },
    {
      id: 'messaging.versioning.v2',
      concurrent: true,
      rules: ['A.versioning.v2'],
      title: 'Area A paths carry /v2/',
      expect: 'POST /v2/notify/{eventId} is routed: it answers with a status other than 404 and 405.',
      async run(ctx) {
        const client = createMessagingClient(ctx);
        const res = await client.call(`/v2/notify/${uniqueId(ctx, 'version')}`, { body: 'x' });
        checkThat('A.versioning.v2', res.status !== 404 && res.status !== 405, describe(res), 'a routed /v2/ path');
      },
    },
    {
      id: 'messaging.limits.message-size',
      rules: ['A.limits.plan'],
      needs: ['admin'],
      title: 'A message above the plan’s maximum message size is never delivered whole',
      expect:
        'With the account’s max_message_size at 2048 bytes, a 4096-byte message is refused (its status observed: publish statuses are not shown) or, if accepted, delivered with at most 2048 bytes, if at all.',
      async run(ctx) {
        const client = createMessagingClient(ctx);
        const inbox = await openInbox(ctx, 'limits.message-size');
        await means(() => publishTo(client, inbox.url('small'), {}, 'small'));
        const limit = 2048;
        await withAccountLimits(ctx, { max_message_size: limit }, async () => {
          const res = await client.call(`/v2/publish/${inbox.url('big')}`, { body: 'x'.repeat(limit * 2) });
          ctx.observe(`oversize publish: ${describe(res)}`);
          if (res.status >= 200 && res.status <= 299) {
            // Accepted: a delivery, if one comes, is what shows how the limit held.
            await inbox.arrive('A.limits.plan', 'big').catch(() => undefined);
          }
        });
        await inbox.settle();
        const sizes = inbox.requests('big').map((request) => request.body.length);
        if (sizes.length > 0) ctx.observe(`the oversize message was delivered with ${show(sizes)} bytes`);
        checkThat(
          'A.limits.plan',
          sizes.every((size) => size <= limit),
          `delivered with ${show(sizes)} bytes`,
          `never more than max_message_size, ${limit} bytes`,
        );
      },
    },
  ]),
);
