/**
 * Messages and dead letters as the real service answers them (`GET /v2/messages/{id}`, `GET /v2/dlq`),
 * in the shape its official SDK types (`Message`, `DlqMessage` of @upstash/qstash): bodies as text,
 * with `bodyBase64` (`responseBodyBase64`) instead only for bytes that are not UTF-8; header values as
 * arrays; the callback URLs, the queue, the URL group and the endpoint's name where they apply.
 * The store keeps bodies base64; the conversion is here, at the edge.
 */
import type { DeadLetter } from './message-store.ts';
import type { StoredMessage } from './stored-message.ts';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** `{[text]: …}` when the bytes are UTF-8, else `{[base64]: …}` (the original base64). */
function textOrBase64(base64: string, text: string, binary: string): Record<string, string> {
  try {
    return { [text]: utf8.decode(Buffer.from(base64, 'base64')) };
  } catch {
    return { [binary]: base64 };
  }
}

const headerLists = (headers: Readonly<Record<string, string>>): Record<string, string[]> =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]]));

export type MessageRecord = Record<string, unknown>;

/** What a message and its dead letter share: the SDK's `Message`. */
export function messageRecord(message: StoredMessage): MessageRecord {
  return {
    messageId: message.id,
    ...(message.topicName !== undefined && { topicName: message.topicName }),
    ...(message.endpointName !== undefined && { endpointName: message.endpointName }),
    url: message.url,
    method: message.method,
    header: headerLists(message.headers),
    ...textOrBase64(message.body, 'body', 'bodyBase64'),
    maxRetries: message.maxRetries,
    notBefore: message.notBefore,
    createdAt: message.createdAt,
    ...(message.callback !== undefined && { callback: message.callback.url }),
    ...(message.failureCallback !== undefined && { failureCallback: message.failureCallback.url }),
    ...(message.queue !== undefined && { queueName: message.queue }),
    callerIp: message.callerIP,
    retried: message.retried,
    ...(message.state !== undefined && { state: message.state }),
    ...(message.dlqId !== undefined && { dlqId: message.dlqId }),
  };
}

/**
 * A dead letter: the message's record (when the message is still kept; else what the entry holds)
 * and the last attempt's answer.
 */
export function deadLetterRecord(entry: DeadLetter, message: StoredMessage | undefined): MessageRecord {
  const base: MessageRecord =
    message === undefined
      ? {
          messageId: entry.messageId,
          url: entry.url,
          method: entry.method,
          header: headerLists(entry.header),
          ...textOrBase64(entry.body, 'body', 'bodyBase64'),
          maxRetries: entry.maxRetries,
          createdAt: entry.createdAt,
        }
      : messageRecord(message);
  const { state: _state, ...rest } = base;
  return {
    ...rest,
    dlqId: entry.dlqId,
    retried: entry.retried,
    responseStatus: entry.responseStatus,
    responseHeader: entry.responseHeader,
    ...textOrBase64(entry.responseBody, 'responseBody', 'responseBodyBase64'),
  };
}
