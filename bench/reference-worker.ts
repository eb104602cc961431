/**
 * Runs the reference service in its own thread, so the load generator in the main thread does not
 * share an event loop with the server it measures. Posts `{ kvUrl, token }` once listening, or
 * `{ error }`; any message from the parent stops it.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { startReference } from '../src/reference/reference-service.ts';
import { formatErrorLine } from '../src/shared/errors.ts';

export interface WorkerReady {
  readonly kvUrl: string;
  readonly token: string;
}
export type WorkerMessage = WorkerReady | { readonly error: string } | 'stopped';

const port = parentPort!;
const { redisUrl } = workerData as { redisUrl: string };

try {
  const reference = await startReference({ redisUrl });
  const kv = reference.target.kv;
  if (kv === undefined) throw new Error('the reference has no kv endpoint');
  port.postMessage({ kvUrl: kv.url, token: kv.token } satisfies WorkerMessage);
  port.once('message', async () => {
    await reference.stop();
    port.postMessage('stopped' satisfies WorkerMessage);
    port.close();
  });
} catch (error) {
  port.postMessage({ error: formatErrorLine(error) } satisfies WorkerMessage);
  port.close();
}
