/**
 * Area C started as one area of the reference service: its own Redis client, the shared messaging
 * account (account/messaging-account.ts), the search index store, and the interface every area has:
 * its routes, its admin routes, its target entry and its close.
 */

import { accountAdminRoutes } from '../account/account-admin-routes.ts';
import { connectAreaRedis } from '../account/area-redis.ts';
import { AccountStore } from '../account/messaging-account.ts';
import type { AreaSettings, StartedArea } from '../reference-area.ts';
import { managementFaultCheck } from './management-fault-check.ts';
import { managementPlugin } from './management-plugin.ts';
import { managementSilenceCheck } from './management-silences.ts';
import { SearchIndexStore } from './search-index-store.ts';

export async function startManagementService(settings: AreaSettings): Promise<StartedArea> {
  const client = await connectAreaRedis(settings.redisUrl);
  let accounts: AccountStore;
  try {
    accounts = await AccountStore.open(client);
  } catch (error) {
    client.destroy();
    throw error;
  }
  const indexes = new SearchIndexStore(client);
  const plugin = {
    accounts,
    indexes,
    dialect: settings.dialect,
    fault: managementFaultCheck(settings.faults),
    silence: managementSilenceCheck(settings.silences),
  };

  return {
    routes: async (app) => {
      await app.register(managementPlugin, plugin);
    },
    // Area C's requests are small JSON bodies on ordinary routes.
    server: { rawPaths: false, bodyLimit: 1024 * 1024 },
    adminRoutes: accountAdminRoutes(accounts),
    targetEntry: (url) => {
      const record = accounts.cached;
      return { url, username: record.account.customer_id, password: record.managementKey };
    },
    describe: () => {
      const record = accounts.cached;
      return [
        ['user', record.account.customer_id],
        ['API key', record.managementKey],
      ];
    },
    close: async () => {
      if (!client.isOpen) return;
      client.destroy();
    },
  };
}
