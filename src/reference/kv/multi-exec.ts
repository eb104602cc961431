/**
 * One area B transaction on Redis: MULTI, the commands and EXEC on one dedicated connection, and
 * what a transaction left open after a missed deadline needs to leave that connection clean.
 */
import { AbortError } from '@redis/client';
import { type Failure, failure, redisFailure } from './kv-outcome.ts';
import { exactTypes, type RedisClient } from './redis-connections.ts';
import type { RedisReply } from './reply-format.ts';
import type { WireArg } from './wire-args.ts';
import { type WriteDeadline, withWriteDeadline } from './write-deadline.ts';

/** How every area B command is sent: exact reply types, and the write deadline of its request. */
export type SendOptions = WriteDeadline & { readonly typeMapping: typeof exactTypes };
export const sendOptions = (deadline: WriteDeadline): SendOptions => ({
  timeout: deadline.timeout,
  abortSignal: deadline.abortSignal,
  typeMapping: exactTypes,
});

export type MultiExecResult =
  | { kind: 'results'; results: RedisReply[] }
  | ({ kind: 'discarded'; queueErrors: Map<number, Failure> } & Failure);

/**
 * MULTI, the commands, EXEC on one dedicated connection, written together under one write deadline.
 * An ACL user may lack MULTI itself: then its reply is awaited first (under a deadline of its own, so
 * the commands' deadline starts when they are queued), and no command runs outside the transaction.
 */
export async function multiExec(
  client: RedisClient,
  commands: readonly WireArg[][],
  confirmMulti: boolean,
  deadlineMs: number,
): Promise<MultiExecResult> {
  const failed = (reason: unknown) => redisFailure(reason, deadlineMs);
  let confirmed: unknown;
  if (confirmMulti) {
    try {
      confirmed = await withWriteDeadline(deadlineMs, (deadline) =>
        client.sendCommand(['MULTI'], deadline.forCommand(0)),
      );
    } catch (error) {
      return { kind: 'discarded', ...failed(error), queueErrors: new Map() };
    }
  }
  // MULTI is command 0, the queued commands 1…n, EXEC n + 1: each on the signal of its place.
  const settled = await withWriteDeadline(deadlineMs, (deadline) =>
    Promise.allSettled([
      confirmMulti ? confirmed : client.sendCommand(['MULTI'], deadline.forCommand(0)),
      ...commands.map((args, index) => client.sendCommand(args, sendOptions(deadline.forCommand(index + 1)))),
      client.sendCommand(['EXEC'], sendOptions(deadline.forCommand(commands.length + 1))),
    ]),
  );
  const queueErrors = new Map<number, Failure>();
  for (const [position, result] of settled.slice(1, -1).entries()) {
    if (result.status === 'rejected') queueErrors.set(position, failed(result.reason));
  }
  const exec = settled.at(-1)!;
  if (exec.status === 'fulfilled' && Array.isArray(exec.value)) return { kind: 'results', results: exec.value };
  // EXEC missed the deadline after MULTI went out: close the transaction left open. Otherwise the
  // next transaction on this pooled connection has its MULTI refused as nested, and its EXEC runs the
  // commands queued here too and answers their replies as its own.
  if (exec.status === 'rejected' && exec.reason instanceof AbortError && settled[0]!.status === 'fulfilled') {
    await client.sendCommand(['DISCARD']).catch(() => {});
  }
  const first = queueErrors.values().next().value;
  const cause =
    first ?? (exec.status === 'rejected' ? failed(exec.reason) : failure('execution', 'ERR transaction discarded'));
  return { kind: 'discarded', ...cause, queueErrors };
}
