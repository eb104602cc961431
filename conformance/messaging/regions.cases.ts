/**
 * Spec "What the service does": {base_url} is regional; the region values are us-east-1 and
 * eu-central-1, default eu-central-1. Each region's base URL the target declares (`messaging.regions`)
 * takes a publish and the message is delivered. A target that declares one region is skipped.
 */
import { defineCases, means, messagingRegions } from '../../src/suite-kit/suite-api.ts';
import { checkThat, describe } from '../support/messaging-checks.ts';
import { createMessagingClient } from '../support/messaging-client.ts';
import { openInbox, signedCases } from '../support/messaging-sink.ts';

export const cases = defineCases(
  signedCases([
    {
      id: 'messaging.regions.served',
      rules: ['A.regions.served'],
      title: 'Every region’s base URL takes a publish and delivers it',
      expect:
        'For each region of the target’s messaging.regions, a publish through that base URL is accepted and its message delivered with its body.',
      async run(ctx) {
        const regions = Object.entries(ctx.target.messaging?.regions ?? {});
        if (regions.length < 2) {
          return ctx.skip('the target declares one region (messaging.regions): nothing regional to compare.');
        }
        const unknown = regions
          .map(([name]) => name)
          .filter((name) => !(messagingRegions as readonly string[]).includes(name));
        if (unknown.length > 0) ctx.observe(`regions the spec does not name: ${unknown.join(', ')}`);
        // The target's own base URL shows the target takes and delivers a message at all: a means,
        // before any other region is judged.
        const main = regions.find(([, url]) => url === ctx.target.messaging?.url)?.[0];
        const inbox = await openInbox(ctx, 'regions');
        for (const [name, url] of regions) {
          const client = createMessagingClient(ctx, { baseUrl: url });
          const res = await client.call(`/v2/publish/${inbox.url(name)}`, {
            headers: { 'content-type': 'text/plain' },
            body: `published in ${name}`,
          });
          const accepted = async (rule: string) =>
            checkThat(rule, res.status >= 200 && res.status <= 299, describe(res), 'the publish accepted', name);
          if (name === main) await means(() => accepted('A.publish.delivers'));
          else await accepted('A.regions.served');
        }
        const received = async (name: string, rule: string) => {
          const [got] = await inbox.arrive(rule, name, 1, `the message published in ${name}`);
          const body = got?.body.toString('utf8');
          checkThat(rule, body === `published in ${name}`, `body ${body}`, `published in ${name}`, name);
        };
        if (main !== undefined) await means(() => received(main, 'A.publish.delivers'));
        for (const [name] of regions) if (name !== main) await received(name, 'A.regions.served');
      },
    },
  ]),
);
