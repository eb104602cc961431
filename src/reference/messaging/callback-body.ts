/**
 * The callback body and the failure-callback body (spec "Callback body (area A)"), from the message
 * and one attempt's outcome: integers as numbers, headers as arrays of strings, bodies base64, and
 * millisecond timestamps as decimal strings, as the real service writes them. An attempt that got no
 * answer (refused, timed out) has status 0, no headers and an empty body.
 */
import { withIntegersAsDoubles } from '../integers-as-doubles.ts';
import type { MessagingFaultCheck } from './messaging-faults.ts';
import type { AttemptOutcome, StoredMessage } from './stored-message.ts';

export type CallbackBody = Record<string, unknown>;

export function callbackBody(
  message: StoredMessage,
  outcome: AttemptOutcome,
  fault: MessagingFaultCheck,
): CallbackBody {
  // Faults: seconds instead of milliseconds (still decimal digits), or numbers instead of strings.
  const unit = fault('callback-created-at-seconds') ? 1000 : 1;
  const timestamp = (ms: number) => (fault('callback-timestamps-numbers') ? ms : String(Math.floor(ms / unit)));
  let header: Readonly<Record<string, string[]>> = outcome.answered ? outcome.header : {};
  if (fault('callback-header-content-type-only')) {
    header = Object.fromEntries(Object.entries(header).filter(([name]) => name === 'content-type'));
  }
  const encoding = fault('callback-body-raw') ? 'utf8' : 'base64';
  return {
    status: outcome.answered ? outcome.status : 0,
    header,
    body: outcome.answered ? outcome.body.toString(encoding) : '',
    retried: message.retried + (fault('callback-retried-off-by-one') ? 1 : 0),
    maxRetries: fault('callback-max-retries-default') ? 3 : message.maxRetries,
    ...(!fault('callback-omits-source-message-id') && { sourceMessageId: message.id }),
    ...groupFields(message, fault),
    url: message.url,
    method: message.method,
    sourceHeader: message.sourceHeader,
    sourceBody: fault('source-body-unencoded') ? Buffer.from(message.body, 'base64').toString('utf8') : message.body,
    notBefore: timestamp(fault('callback-not-before-ignores-delay') ? message.createdAt : message.notBefore),
    createdAt: timestamp(message.createdAt),
    callerIP: message.callerIP,
  };
}

/**
 * topicName and endpointName (spec "Callback body": when the message was sent to a URL group, when
 * its endpoint has a name). Faults: topicName left out; the group's name given as endpointName.
 */
function groupFields(message: StoredMessage, fault: MessagingFaultCheck): CallbackBody {
  if (message.topicName === undefined) return {};
  const endpointName = fault('callback-endpoint-name-wrong') ? message.topicName : message.endpointName;
  return {
    ...(!fault('callback-omits-topic-name') && { topicName: message.topicName }),
    ...(endpointName !== undefined && { endpointName }),
  };
}

export function failureCallbackBody(
  message: StoredMessage,
  outcome: AttemptOutcome,
  dlqId: string,
  fault: MessagingFaultCheck,
): CallbackBody {
  const body: CallbackBody = {
    ...callbackBody(message, outcome, fault),
    ...(!fault('failure-callback-no-dlq-id') && { dlqId }),
  };
  if (fault('failure-callback-omits-endpoint-name')) delete body.endpointName;
  return body;
}

/** The integer fields of a callback body (spec "Callback body (area A)": integer). */
const integerFields = ['status', 'retried', 'maxRetries'];

/**
 * The JSON text a callback body is sent as. The fault writes its integer fields as doubles
 * (`"status":200.0`), which JSON.parse reads back as the same number: only the text shows it.
 */
export function callbackText(body: CallbackBody, fault: MessagingFaultCheck): string {
  const text = JSON.stringify(body);
  return fault('callback-integers-as-doubles') ? withIntegersAsDoubles(text, integerFields) : text;
}
