/**
 * The callback body and the failure-callback body (spec "Callback body (area A)"), from the message
 * and one attempt's outcome: integers as numbers, headers as arrays of strings, bodies base64, and
 * millisecond timestamps as decimal strings, as the real service writes them. An attempt that got no
 * answer (refused, timed out) has status 0, no headers and an empty body.
 */
import type { MessagingFaultCheck } from './messaging-faults.ts';
import type { AttemptOutcome, StoredMessage } from './stored-message.ts';

export type CallbackBody = Record<string, unknown>;

export function callbackBody(
  message: StoredMessage,
  outcome: AttemptOutcome,
  fault: MessagingFaultCheck,
): CallbackBody {
  const timestamp = (ms: number) => (fault('callback-timestamps-numbers') ? ms : String(ms));
  return {
    status: outcome.answered ? outcome.status : 0,
    header: outcome.answered ? outcome.header : {},
    body: outcome.answered ? outcome.body.toString('base64') : '',
    retried: message.retried,
    maxRetries: message.maxRetries,
    ...(!fault('callback-omits-source-message-id') && { sourceMessageId: message.id }),
    url: message.url,
    method: message.method,
    sourceHeader: message.sourceHeader,
    sourceBody: message.body,
    notBefore: timestamp(message.notBefore),
    createdAt: timestamp(message.createdAt),
    callerIP: message.callerIP,
  };
}

export function failureCallbackBody(
  message: StoredMessage,
  outcome: AttemptOutcome,
  dlqId: string,
  fault: MessagingFaultCheck,
): CallbackBody {
  return { ...callbackBody(message, outcome, fault), ...(!fault('failure-callback-no-dlq-id') && { dlqId }) };
}
