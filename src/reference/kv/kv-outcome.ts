/**
 * What one area B command produced, and why it failed when it did. The engine decides the kind of a
 * failure where it happens (its own checks, Redis's reply, a lost connection); the answer maps the
 * kind to a status (spec "Errors") and never reads the error text.
 */
import { ErrorReply } from '@redis/client';
import { oneLine } from '../../shared/errors.ts';
import type { RedisReply } from './reply-format.ts';
import { missedWriteDeadline } from './write-deadline.ts';

/**
 * Why a command failed. `syntax`: wrong arity or syntax. `unsupported`: a command area B does not
 * run. `refused`: the service's checks (read-only token, daily limit). `limit`: over the maximum
 * request size. `execution`: Redis ran it and answered an error. `unavailable`: Redis could not be
 * reached or did not answer in time (a server error, not the client's).
 */
export type ErrorKind = 'syntax' | 'unsupported' | 'refused' | 'limit' | 'execution' | 'unavailable';

/** A failure before any outcome exists (a check, a queued command, a discarded transaction). */
export interface Failure {
  readonly errorKind: ErrorKind;
  readonly error: string;
}

export type Outcome =
  | { readonly kind: 'reply'; readonly reply: RedisReply }
  | ({ readonly kind: 'error'; readonly source: 'redis' | 'service' } & Failure);

export type TransactionOutcome =
  | ({ readonly kind: 'discarded' } & Failure)
  | { readonly kind: 'results'; readonly results: readonly Outcome[] };

/** The text of a failure to reach Redis: a server error (500), not the client's (notes: none shown). */
export const backingStoreUnavailable = 'ERR backing store unavailable';

export function failure(errorKind: ErrorKind, error: string): Failure {
  return { errorKind, error };
}

/** An error the service itself answers (its checks, its deadlines). */
export function serviceError(cause: Failure): Outcome {
  return { kind: 'error', source: 'service', ...cause };
}

/** A failure to reach Redis, worded once. */
export function unavailable(detail: string): Failure {
  return failure('unavailable', `${backingStoreUnavailable}: ${detail}`);
}

/**
 * Redis's own error reply, classified by its protocol text: Redis tells wrong arity and syntax
 * errors only in words (`ERR wrong number of arguments …`, `ERR syntax error`).
 */
export function redisErrorKind(message: string): ErrorKind {
  return /^ERR (wrong number of arguments|syntax error)/.test(message) ? 'syntax' : 'execution';
}

/** What a rejected command became: Redis's error reply, or the backing store failing (lost, not written in time). */
export function redisFailure(reason: unknown, deadlineMs: number): Failure {
  if (reason instanceof ErrorReply) return failure(redisErrorKind(reason.message), reason.message);
  return unavailable(missedWriteDeadline(reason, deadlineMs) ?? oneLine(reason));
}

/** An outcome from a rejected command: Redis's refusal (its own error) or a lost or unwritten command. */
export function rejectedOutcome(reason: unknown, deadlineMs: number): Outcome {
  return {
    kind: 'error',
    source: reason instanceof ErrorReply ? 'redis' : 'service',
    ...redisFailure(reason, deadlineMs),
  };
}

/** One reply of EXEC: a value, or Redis's error for that command. */
export function fromReply(reply: RedisReply): Outcome {
  return reply instanceof ErrorReply
    ? { kind: 'error', source: 'redis', errorKind: redisErrorKind(reply.message), error: reply.message }
    : { kind: 'reply', reply };
}
