/**
 * Starts `@humanwhocodes/upstash-redis-server` (a third-party implementation of the key-value REST
 * interface, from npm) on a loopback port of its own choosing, in its own process: its bin listens on
 * every interface, and some requests crash it, so the tests run it here and read the port it prints.
 * URS_TOKEN and REDIS_URL as for its bin.
 */
import { serve } from '@hono/node-server';
import { createApp } from '@humanwhocodes/upstash-redis-server';

const token = process.env.URS_TOKEN;
const redisUrl = process.env.REDIS_URL;
if (!token || !redisUrl) {
  process.stderr.write('hwc-server: URS_TOKEN and REDIS_URL are required\n');
  process.exit(2);
}
const app = createApp({ token, redisUrl });
// PORT: a fixed port, for a soak that starts it again after a kill at the address its target names.
const server = serve({ fetch: app.fetch, port: Number(process.env.PORT ?? 0), hostname: '127.0.0.1' }, (info) => {
  process.stdout.write(`listening ${info.port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
