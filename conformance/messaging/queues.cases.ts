/**
 * Spec "States and transitions > Queue (area A)" and "Endpoints": pause answers 200; a paused queue
 * accepts messages (a check of its own) and holds them; pausing a paused queue changes nothing. Creating a queue,
 * enqueueing and resuming are not in the spec (the adapter does them); what resume does is observed.
 */
import { CheckFailure, defineCases, means } from '../../src/suite-kit/suite-api.ts';
import { cover } from '../rules/dimensions.ts';
import { type MessagingAdapter, messagingAdapter } from '../support/messaging-adapter.ts';
import { checkStatus, checkThat } from '../support/messaging-checks.ts';
import { createMessagingClient } from '../support/messaging-client.ts';
import { openInbox, signedCases } from '../support/messaging-sink.ts';
import { uniqueId } from '../support/messaging-steps.ts';

/** Enqueues to a paused queue: a refusal fails A.queue.paused-accepts (a means elsewhere: blocked). */
async function enqueueWhilePaused(adapter: MessagingAdapter, queue: string, url: string, body: string): Promise<void> {
  try {
    await adapter.enqueue(queue, url, {}, body);
  } catch (error) {
    throw new CheckFailure(
      'A.queue.paused-accepts',
      `the enqueue was refused: ${error instanceof Error ? error.message : String(error)}`,
      'the message accepted',
      'an enqueue to the paused queue',
    );
  }
}

const unsignedCases = defineCases([
  {
    id: 'messaging.queue.paused-accepts',
    concurrent: true,
    rules: ['A.queue.paused-accepts'],
    needs: ['messaging.adapter'],
    title: 'A paused queue still accepts new messages',
    expect:
      'Creates one queue (deleted afterwards): an enqueue while it is active is accepted; after a pause, an enqueue is accepted too.',
    async run(ctx) {
      const client = createMessagingClient(ctx);
      const adapter = await messagingAdapter(ctx);
      const inbox = await openInbox(ctx, 'queue.paused-accepts');
      const queue = uniqueId(ctx, 'queue').slice(-60);
      await adapter.createQueue(queue, { parallelism: 1 });
      ctx.onCleanup(async () => {
        await adapter.deleteQueue?.(queue);
      });
      // The positive first: the same enqueue is accepted while the queue is active.
      await means(() => adapter.enqueue(queue, inbox.url('dest', '/active'), {}, 'while active'));
      await means(async () =>
        checkStatus('A.queue.pause-200', await client.call(`/v2/queues/${queue}/pause`), 200, 'the pause'),
      );
      await enqueueWhilePaused(adapter, queue, inbox.url('dest', '/paused'), 'while paused');
    },
  },
  {
    id: 'messaging.queue.pause',
    concurrent: true,
    rules: ['A.queue.pause-200', 'A.queue.paused-holds', 'A.queue.pause-idempotent', 'A.queue.resume'],
    covers: [cover('A.queue.pause-200', { 'resource-id': ['known'] })],
    needs: ['messaging.adapter'],
    title: 'A paused queue holds its messages; pausing again changes nothing',
    expect:
      'Creates one queue (deleted afterwards): pause answers 200, a message enqueued is not delivered; a second pause answers 200 and a second message is not delivered either; after resume both arrive (observed).',
    async run(ctx) {
      const client = createMessagingClient(ctx);
      const adapter = await messagingAdapter(ctx);
      const inbox = await openInbox(ctx, 'queue.pause');
      const queue = uniqueId(ctx, 'queue').slice(-60);
      await adapter.createQueue(queue, { parallelism: 1 });
      ctx.onCleanup(async () => {
        await adapter.deleteQueue?.(queue);
      });
      checkStatus('A.queue.pause-200', await client.call(`/v2/queues/${queue}/pause`), 200, 'the first pause');
      await means(() => enqueueWhilePaused(adapter, queue, inbox.url('dest', '/1'), 'first'));
      await inbox.settle();
      checkThat(
        'A.queue.paused-holds',
        inbox.requests('dest').length === 0,
        'a message was delivered while paused',
        'no delivery',
      );
      checkStatus('A.queue.pause-idempotent', await client.call(`/v2/queues/${queue}/pause`), 200, 'the second pause');
      await means(() => enqueueWhilePaused(adapter, queue, inbox.url('dest', '/2'), 'second'));
      await inbox.settle();
      checkThat(
        'A.queue.pause-idempotent',
        inbox.requests('dest').length === 0,
        'a message was delivered after the second pause',
        'the queue still paused',
      );
      await adapter.resume(queue);
      const got = await inbox.arrive('A.queue.resume', 'dest', 2, 'after resume');
      ctx.observe(`after resume: ${got.map((item) => item.body.toString('utf8')).join(', ')}`);
    },
  },
]);

/** Every request these cases receive is judged by its signature too (A.signature.verifiable). */
export const cases = signedCases(unsignedCases);
