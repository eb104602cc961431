/**
 * The delivery loop on a worker thread of its own (started by dispatcher.ts): its own Redis client,
 * account cache, signing keys (kept in step by the API thread's rotations), message store and HTTP
 * client, so delivering, signing and writing outcomes leave the API thread free for publishes.
 * Messages from the API thread: `poke` (something became due), `keys` (a rotation), `stop`.
 */
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { getDialect } from '../../target/dialects.ts';
import { connectAreaRedis } from '../account/area-redis.ts';
import { AccountStore } from '../account/messaging-account.ts';
import { Deliverer } from './deliverer.ts';
import { DeliveryLoop } from './delivery-loop.ts';
import type { DispatchWorkerInput, FromDispatchWorker, ToDispatchWorker } from './dispatch-messages.ts';
import { MessageStore } from './message-store.ts';
import type { MessagingFaultName } from './messaging-faults.ts';
import { defaultRetries } from './publish-request.ts';
import { SigningKeyStore } from './signing-keys.ts';
import { WaiterStore } from './waiters.ts';

if (parentPort === null) throw new Error('dispatch-worker.ts runs only as a worker thread');
const port: MessagePort = parentPort;
const input = workerData as DispatchWorkerInput;
const send = (message: FromDispatchWorker) => port.postMessage(message);

async function main(): Promise<void> {
  const redis = await connectAreaRedis(input.redisUrl);
  const deliverer = new Deliverer();
  try {
    const account = await AccountStore.open(redis);
    const keys = await SigningKeyStore.open(redis, input.issuer);
    const store = new MessageStore(redis);
    // The same retries and timeout as the API thread's waiter store gives the messages waiters cause.
    const waiters = new WaiterStore(redis, () => {
      const plan = account.cached.account;
      return { retries: Math.min(defaultRetries, plan.max_retries), timeoutMs: plan.timeout * 1000 };
    });
    const faults = new Set(input.faults);
    const loop = new DeliveryLoop({
      store,
      waiters,
      keys,
      account,
      deliverer,
      dialect: getDialect(input.dialect),
      fault: (name: MessagingFaultName) => faults.has(name),
      backoff: input.backoff,
      warn: (line) => process.stderr.write(`${line}\n`),
    });
    port.on('message', (message: ToDispatchWorker) => {
      if (message.type === 'poke') loop.poke(message.pumpQueues);
      else if (message.type === 'keys') keys.use(message.keys);
      else if (message.type === 'stop') {
        void (async () => {
          await loop.stop();
          await deliverer.close();
          redis.destroy();
          send({ type: 'stopped' });
          port.close();
        })();
      }
    });
    await loop.start();
    send({ type: 'started' });
  } catch (error) {
    await deliverer.close();
    redis.destroy();
    throw error;
  }
}

main().catch((error: unknown) => {
  send({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
  port.close();
});
