/**
 * Area A started as one area of the reference service: its Redis client, the account (shared with
 * area C through Redis), the signing keys, messages, waiters, the delivery loop, and one server per
 * region (`--regions`), each with its own latency (`--region-latency`), all over the same state; URL
 * groups (topics) are kept in the same Redis.
 */
import { defaultRegion } from '../../target/messaging-regions.ts';
import { accountAdminRoutes } from '../account/account-admin-routes.ts';
import { connectAreaRedis } from '../account/area-redis.ts';
import { AccountStore } from '../account/messaging-account.ts';
import type { AreaSettings, StartedArea } from '../reference-area.ts';
import { Deliverer } from './deliverer.ts';
import { Dispatcher } from './dispatcher.ts';
import { MessageStore } from './message-store.ts';
import { messagingAdminRoutes } from './messaging-admin-routes.ts';
import type { MessagingFaultName } from './messaging-faults.ts';
import { messagingRoutes } from './messaging-routes.ts';
import type { MessagingSilenceName } from './messaging-silences.ts';
import { NotifyFailures } from './notify-failures.ts';
import { defaultRetries } from './publish-request.ts';
import { RateLimit } from './rate-limit.ts';
import { SigningKeyStore } from './signing-keys.ts';
import { TopicStore } from './topic-store.ts';
import { WaiterStore } from './waiters.ts';
import { WriteBehind } from './write-behind.ts';

/** Above the plan's 50 MiB maximum message size, so an oversize message gets the service's own 413. */
const serverBodyLimit = 64 * 1024 * 1024;

export async function startMessagingService(settings: AreaSettings): Promise<StartedArea> {
  const { options, dialect } = settings;
  const fault = (name: MessagingFaultName) => settings.faults.has(name);
  const silence = (name: MessagingSilenceName) => settings.silences.has(name);
  const regions = options.messaging?.regions ?? [defaultRegion];
  const main = regions.includes(defaultRegion) ? defaultRegion : (regions[0] as string);
  const latency = options.messaging?.regionLatencyMs ?? {};
  const redis = await connectAreaRedis(settings.redisUrl);
  const deliverer = new Deliverer();
  try {
    const account = await AccountStore.open(redis);
    const keys = await SigningKeyStore.open(redis, dialect.name === 'upstash' ? 'Upstash' : 'Svc');
    const store = new MessageStore(redis);
    const topics = new TopicStore(redis);
    const waiters = new WaiterStore(redis, () => {
      const plan = account.cached.account;
      return { retries: Math.min(defaultRetries, plan.max_retries), timeoutMs: plan.timeout * 1000 };
    });
    const warn = (line: string) => process.stderr.write(`${line}\n`);
    const dispatcher = new Dispatcher({
      store,
      waiters,
      keys,
      account,
      deliverer,
      dialect,
      fault,
      silence,
      backoff: options.messaging?.retryBackoff ?? { kind: 'real' },
      warn,
    });
    await dispatcher.start();
    const writeBehind = fault('publish-write-behind')
      ? new WriteBehind(
          (message, dedupId) => store.accept(message, dedupId),
          options.faultRecord,
          () => dispatcher.poke(false),
          warn,
        )
      : undefined;
    const rateLimit = new RateLimit();
    const notifyFailures = new NotifyFailures();
    const routesFor = (region: string) => async (app: Parameters<StartedArea['routes']>[0]) => {
      await app.register(messagingRoutes, {
        store,
        topics,
        waiters,
        keys,
        account,
        dispatcher,
        dialect,
        fault,
        silence,
        rateLimit,
        latencyMs: latency[region] ?? 0,
        mainRegion: region === main,
        notifyFailures,
        ...(writeBehind !== undefined && { writeBehind }),
      });
    };
    return {
      routes: routesFor(main),
      server: { rawPaths: false, bodyLimit: serverBodyLimit },
      extraServers: regions.filter((region) => region !== main).map((name) => ({ name, routes: routesFor(name) })),
      // The account's routes are area C's; a reference serving area A without C offers them here.
      adminRoutes: async (app) => {
        await app.register(messagingAdminRoutes({ store, keys, notifyFailures }));
        if (options.areas !== undefined && !options.areas.includes('management')) {
          await app.register(accountAdminRoutes(account));
        }
      },
      targetEntry: (url, extraUrls) => ({
        url,
        token: account.cached.account.token,
        regions: { [main]: url, ...extraUrls },
        // The reference has the real service's endpoints the spec does not document.
        adapter: 'real-world',
      }),
      describe: () => [
        ['token', account.cached.account.token],
        ['current signing key', keys.keys.current],
        ['next signing key', keys.keys.next],
      ],
      async close() {
        try {
          await writeBehind?.close();
          await dispatcher.stop();
          await deliverer.close();
        } finally {
          redis.destroy();
        }
      },
    };
  } catch (error) {
    await deliverer.close();
    redis.destroy();
    throw error;
  }
}
