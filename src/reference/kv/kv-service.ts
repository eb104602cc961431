/**
 * Area B started as one area of the reference service: the assembled area (kv-area.ts) behind the
 * interface every area has: its routes, its admin routes, its target entry and its close.
 */

import type { AreaSettings, StartedArea } from '../reference-area.ts';
import { defaultMaxRequestBytes } from '../reference-options.ts';
import { kvAdminRoutes } from './kv-admin-routes.ts';
import { startKvArea } from './kv-area.ts';
import { kvFaultCheck, kvSilenceCheck } from './kv-fault-check.ts';
import { kvPlugin } from './kv-plugin.ts';

export async function startKvService(settings: AreaSettings): Promise<StartedArea> {
  const { options } = settings;
  const silence = kvSilenceCheck(settings.silences);
  // Silences max-request-size-1mib and daily-limit-million: other values of the limits the spec does not
  // show, where the run sets none itself.
  const smallMax = silence('max-request-size-1mib');
  const maxRequestBytes = options.maxRequestBytes ?? (smallMax ? 1024 * 1024 : defaultMaxRequestBytes);
  const kv = await startKvArea({
    redisUrl: settings.redisUrl,
    fault: kvFaultCheck(settings.faults),
    silence,
    maxRequestBytes,
    dailyRequestLimit: options.dailyRequestLimit ?? (silence('daily-limit-million') ? 1_000_000 : null),
    writeDeadlineMs: options.writeDeadlineMs,
    replyDeadlineMs: options.replyDeadlineMs,
    streamBufferBytes: options.streamBufferBytes,
    dialect: settings.dialect,
    ...(options.tokens?.kv !== undefined && { tokens: options.tokens.kv }),
    ...(options.faultRecord !== undefined && { faultRecord: options.faultRecord }),
  });
  return {
    routes: async (app) => {
      // A known slowdown for measuring the harness (`serve --kv-latency`): every answer waits this long.
      const latencyMs = options.kvLatencyMs ?? 0;
      if (latencyMs > 0) {
        app.addHook('onRequest', async () => {
          await new Promise((resolve) => setTimeout(resolve, latencyMs));
        });
      }
      await app.register(kvPlugin, kv.plugin);
    },
    // Area B reads the raw path itself (any byte may be percent-escaped). The body limit is above the
    // maximum request size, so an oversize command gets the spec's error from the service, not fastify's.
    server: { rawPaths: true, bodyLimit: Math.max(2 * maxRequestBytes + 1024 * 1024, 16 * 1024 * 1024) },
    adminRoutes: kvAdminRoutes(kv),
    targetEntry: (url) => {
      const current = kv.tokens.database;
      return { url, token: current.token, readOnlyToken: current.readOnlyToken };
    },
    describe: () => [
      ['Standard token', kv.tokens.database.token],
      ['Read Only token', kv.tokens.database.readOnlyToken],
    ],
    close: () => kv.close(),
  };
}
