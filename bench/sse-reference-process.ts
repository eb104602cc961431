/**
 * The reference service alone in a process, for bench/sse-slow-subscribers.ts to measure its memory.
 * Started with an IPC channel (fork): posts `{ kvUrl, token }` once listening, or `{ error }`; answers
 * each 'usage' with process.memoryUsage(), each 'gc' with the same after a full collection (only when
 * node runs with --expose-gc), and stops the reference on 'stop'.
 *
 *   argv: <redisUrl> [streamBufferBytes]
 */
import { startReference } from '../src/reference/reference-service.ts';
import { formatErrorLine } from '../src/shared/errors.ts';

export type ReferenceProcessRequest = 'usage' | 'gc' | 'stop';
export type ReferenceProcessMessage =
  | { readonly kvUrl: string; readonly token: string }
  | { readonly error: string }
  | { readonly usage: NodeJS.MemoryUsage; readonly collected: boolean }
  | 'stopped';

const send = (message: ReferenceProcessMessage) => process.send?.(message);
const [redisUrl = '', bufferArg] = process.argv.slice(2);

try {
  const streamBufferBytes = bufferArg === undefined ? undefined : Number(bufferArg);
  const reference = await startReference({
    redisUrl,
    areas: ['kv'],
    ...(streamBufferBytes !== undefined && { streamBufferBytes }),
  });
  const kv = reference.target.kv;
  if (kv === undefined) throw new Error('the reference has no kv endpoint');
  process.on('message', async (request: ReferenceProcessRequest) => {
    if (request === 'stop') {
      await reference.stop();
      send('stopped');
      process.disconnect();
      return;
    }
    const gc = (globalThis as { gc?: () => void }).gc;
    const collected = request === 'gc' && gc !== undefined;
    if (collected) gc();
    send({ usage: process.memoryUsage(), collected });
  });
  send({ kvUrl: kv.url, token: kv.token });
} catch (error) {
  send({ error: formatErrorLine(error) });
  process.disconnect();
}
