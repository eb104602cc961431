/**
 * Area A (messaging and workflow) rules of the spec. Ids are stable: suites, expectations files and
 * the reference's fault switches refer to them. OBSERVE rules are where the spec says "not shown":
 * cases record what they saw there, and never fail an implementation.
 */
import type { Rule } from '../../src/suite-kit/suite-api.ts';

const endpoints = 'Endpoints > Area A, messaging and workflow ({base_url})';
const waiter = 'Resources and their fields > Waiter (area A)';
const notifyItem = 'Resources and their fields > NotifyResponse item (area A)';
const keys = 'Resources and their fields > Signing keys (area A)';
const callbackBody = 'Resources and their fields > Callback body (area A)';
const errorObject = 'Resources and their fields > Error (area A)';
const queueStates = 'States and transitions > Queue (area A)';
const waiterStates = 'States and transitions > Waiter (area A)';
const whatItDoes = 'What the service does';

type MessagingRule = Omit<Rule, 'area' | 'level'> & { readonly level?: Rule['level'] };

const messagingRules: readonly MessagingRule[] = [
  // Publish and delivery
  {
    id: 'A.publish.delivers',
    section: whatItDoes,
    text: 'An accepted message is delivered over HTTP to its destination URL, with its body.',
  },
  {
    id: 'A.publish.response-shape',
    section: endpoints,
    level: 'OBSERVE',
    text: 'The shape of the publish response is not shown.',
  },
  {
    id: 'A.publish.headers',
    section: endpoints,
    level: 'OBSERVE',
    text: 'Publish headers other than the callback headers, and the payload rules, are not shown.',
  },
  {
    id: 'A.signature.verifiable',
    section: 'Authentication',
    text: 'Each request the service sends (deliveries and their retries, callbacks, failure callbacks, waiter notifications and timeouts: its outgoing requests) carries a signature a receiver verifies with the current or the next signing key the rotate operation returns. The scheme (header, algorithm, key use) is not shown: the target declares it (messaging.signature; by default its dialect’s, a JWT, HS256, in the signature header); under scheme none nothing is judged.',
  },

  // Notify and waiters
  {
    id: 'A.notify.status-201',
    section: endpoints,
    text: 'POST /v2/notify/{eventId} answers 201 with a JSON array of NotifyResponse items.',
  },
  {
    id: 'A.notify.one-per-waiter',
    section: endpoints,
    text: 'Notify broadcasts to every active waiter of the event id: one response item per notified waiter.',
  },
  {
    id: 'A.notify.item-fields',
    section: notifyItem,
    text: 'Each NotifyResponse item has waiter (a Waiter), messageId (string), deduplicated (boolean), and error, workflowRunId (string) and workflowCreatedAt (integer, ms) when present.',
  },
  {
    id: 'A.notify.waiter-fields',
    section: waiter,
    text: 'A Waiter has url (string), headers (name to array of strings) and deadline (integer, Unix seconds); timeoutBody (base64 string), timeoutUrl (string) and timeoutHeaders (name to array of strings) when the waiter was created with them, typed wherever present. The Waiter table has no Required column (the Error table has one), so a field that describes nothing the waiter was given may be left out.',
  },
  {
    id: 'A.notify.workflow-headers',
    section: waiter,
    text: 'A notified waiter’s headers (Waiter.headers, the headers sent with the notification) carry the workflow run id and workflow URL headers, each an array of one string, and the notification arrives with them.',
  },
  {
    id: 'A.notify.delivers-event',
    section: waiterStates,
    text: 'A notified waiting step receives the event data as its request payload.',
  },
  {
    id: 'A.notify.lost-without-waiter',
    section: waiterStates,
    text: 'With no active waiter the notify answers no item, the event is lost and is never delivered later.',
  },
  {
    id: 'A.notify.by-run',
    section: endpoints,
    text: 'POST /v2/notify/{workflowRunId}/{eventId} delivers the event to that workflow run.',
  },
  {
    id: 'A.notify.by-run-shapes',
    section: endpoints,
    level: 'OBSERVE',
    text: 'The request and response shapes of the notify-by-run path are not shown.',
  },
  {
    id: 'A.waiter.deadline',
    section: waiterStates,
    level: 'OBSERVE',
    text: 'What happens when a waiter’s deadline passes is not shown.',
  },
  {
    id: 'A.notify.item-workflow-fields',
    section: notifyItem,
    text: 'When the notified waiter was created within a workflow run, its item has workflowRunId (string, that run’s id) and workflowCreatedAt (integer, Unix milliseconds): the spec gives both "when sent within a workflow".',
  },
  {
    id: 'A.timestamps.units',
    section: waiter,
    // The Waiter table: deadline, "Unix timestamp in seconds"; the NotifyResponse item: workflowCreatedAt,
    // "Unix timestamp in milliseconds" (the Callback body's notBefore and createdAt are milliseconds too,
    // judged by A.callback.fields against the publish's own time).
    text: 'Timestamps keep the unit their table gives: a Waiter’s deadline in Unix seconds, a NotifyResponse item’s workflowCreatedAt in Unix milliseconds, each near the time the waiter and its run were created.',
  },
  {
    id: 'A.notify.item-error',
    section: notifyItem,
    level: 'OBSERVE',
    text: 'The item’s error "if the notification failed": a failing notification cannot be arranged from outside (the notification is a message the service publishes itself), so it is observed.',
  },
  {
    id: 'A.notify.body-forms',
    section: endpoints,
    text: 'Notify’s optional body, absent, application/json, text/plain or application/octet-stream (any bytes), reaches the waiting step as its payload byte for byte.',
  },
  {
    id: 'A.notify.body-content-type',
    section: endpoints,
    level: 'OBSERVE',
    text: 'The content type a waiting step gets with the event data is not shown.',
  },
  {
    id: 'A.notify.invalid-event-400',
    section: 'Errors',
    text: 'Notify with an invalid event id answers 400. Which ids are invalid is not shown: of ids with a space, a control character or 2000 bytes, at least one must be; each byte class is observed.',
  },
  { id: 'A.notify.rate-limit-429', section: 'Errors', text: 'Notify beyond the plan’s request rate answers 429.' },
  {
    id: 'A.notify.internal-500',
    section: 'Errors',
    text: 'A notify that fails inside the service answers 500 (its body is the Error object, A.errors.error-object); arranged through the admin hook, as it cannot be provoked from outside.',
  },

  // Authentication and errors
  {
    id: 'A.auth.bearer',
    section: 'Authentication',
    text: 'Requests authenticate with Authorization: Bearer <API_TOKEN>; a notify without it, with a wrong token or a malformed header is refused with 401 (the Errors table shows 401 for notify only).',
  },
  {
    id: 'A.auth.required',
    section: 'Authentication',
    text: 'Every area A operation (publish, enqueue, rotate, pause, notify by run) refuses a request without valid credentials (none, a wrong Bearer token, Bearer alone, the token under another scheme, a wrong svc_token): not 2xx, and with no effect (nothing delivered, keys and queue unchanged). Its status is not shown.',
  },
  {
    id: 'A.auth.query-token',
    section: 'Authentication',
    text: 'The token may instead be given in the svc_token query parameter.',
  },
  { id: 'A.errors.error-object', section: errorObject, text: 'Error bodies are a JSON object with error (string).' },
  {
    id: 'A.errors.other-statuses',
    section: 'Errors',
    level: 'OBSERVE',
    text: 'Status codes of the messaging endpoints other than notify are not shown.',
  },

  // Signing keys
  {
    id: 'A.keys.rotate-shape',
    section: keys,
    text: 'POST /v2/keys/rotate answers a JSON object with current and next, both strings.',
  },
  {
    id: 'A.keys.rotate-promotes-next',
    section: 'Authentication',
    text: 'Rotating makes the previous next key the current key and issues a new next key. The spec: the service "rotates the keys used to sign its outgoing requests", the rotate operation "returns the current and next signing keys", and a receiver verifies with either: a key announced as next is the one a rotation brings into use.',
  },
  { id: 'A.keys.rotate-status', section: endpoints, level: 'OBSERVE', text: 'The rotate status code is not shown.' },

  // Queues
  { id: 'A.queue.pause-200', section: endpoints, text: 'POST /v2/queues/{queueName}/pause answers 200.' },
  {
    id: 'A.queue.pause-idempotent',
    section: queueStates,
    text: 'Pausing a paused queue has no effect and answers 200.',
  },
  {
    id: 'A.queue.paused-holds',
    section: queueStates,
    text: 'A paused queue stops delivering: messages wait until the queue is active again.',
  },
  {
    id: 'A.queue.paused-accepts',
    section: queueStates,
    text: 'A paused queue still accepts new messages.',
  },
  {
    id: 'A.queue.resume',
    section: queueStates,
    level: 'OBSERVE',
    text: 'Transitions out of paused are not shown.',
  },

  // Callbacks. The conditional fields topicName and endpointName are arranged by a URL group (through
  // the adapter: url-groups.cases.ts); scheduleId needs schedules (not in the reference): no case
  // arranges one yet, so it is typed when present only (see A.callback.field-types).
  {
    id: 'A.callback.on-answer',
    section: 'Events',
    text: 'When a destination has answered, a callback with the Callback body is sent to the Svc-Callback URL.',
  },
  {
    id: 'A.callback.fields',
    section: callbackBody,
    text: 'The callback body has every field of the Callback body that applies (status, header, body, retried, maxRetries, sourceMessageId, url, method, sourceHeader, sourceBody, notBefore, createdAt, callerIP; topicName for a message sent to a URL group, and endpointName when its endpoint has a name), each true to what happened. What the spec leaves to the implementation is judged by what it did: maxRetries against the attempts the receiver saw (the retries header is not in the spec), notBefore against createdAt and the first attempt, sourceHeader ("Headers of the triggering message") as every header of the publish or as the headers the message carried to its destination.',
  },
  {
    id: 'A.callback.field-types',
    section: callbackBody,
    text: 'Callback body fields have the spec’s types: integers, objects of strings or string arrays, base64 bodies, and millisecond timestamps as decimal-digit strings.',
  },
  {
    id: 'A.callback.body-truncated',
    section: 'Limits',
    text: 'The callback’s body is the destination’s response body, whole or, when it exceeds the plan’s maximum message size, truncated (a prefix of it). The spec says it "may be truncated": cutting is allowed past the limit, not required, so how much is kept is observed.',
  },
  {
    id: 'A.callback.config-headers',
    section: endpoints,
    text: 'Svc-Callback-Timeout, -Retries, -Delay and -Method configure the callback request.',
  },
  {
    id: 'A.callback.forward-headers',
    section: endpoints,
    text: 'Svc-Callback-Forward-<Header-Name> sends <Header-Name> to the callback endpoint.',
  },
  {
    id: 'A.callback.on-enqueue',
    section: endpoints,
    text: 'The callback headers are accepted on enqueue with the same semantics as on publish.',
  },
  {
    id: 'A.callback.with-failure-callback',
    section: endpoints,
    text: 'A callback and a failure callback may be used together: both are sent.',
  },
  {
    id: 'A.failure-callback.after-exhaustion',
    section: 'Events',
    text: 'The failure callback is sent only when all retries are exhausted and delivery failed.',
  },
  {
    id: 'A.failure-callback.fields',
    section: callbackBody,
    text: 'The failure-callback body has the callback body’s fields plus dlqId (string).',
  },
  {
    id: 'A.failure-callback.dlq-entry',
    section: callbackBody,
    text: 'The dlqId of a failure callback names the message’s dead letter queue entry.',
  },
  {
    id: 'A.failure-callback.config-headers',
    section: endpoints,
    text: 'Svc-Failure-Callback-Timeout, -Retries, -Delay and -Method configure the failure-callback request.',
  },
  {
    id: 'A.failure-callback.forward-headers',
    section: endpoints,
    text: 'Svc-Failure-Callback-Forward-<Header-Name> sends <Header-Name> to the failure-callback endpoint.',
  },

  // URL groups (topics): the spec names them through the callback body's topicName and endpointName
  // and the account's max_topics and max_endpoints_per_topic; how a group is made and published to is
  // the real service's API, which the cases reach through the adapter.
  {
    id: 'A.url-group.fan-out',
    section: callbackBody,
    level: 'OBSERVE',
    text: 'Which endpoints of a URL group a message sent to it reaches is not shown: the spec names groups only through the callback body’s topicName and endpointName and the plan’s limits.',
  },

  // Limits, regions and versioning
  {
    id: 'A.limits.plan',
    section: 'Limits',
    text: 'Area A limits are the messaging account’s fields ("message size (bytes)"): a message above the maximum message size is never delivered whole. How the limit is enforced is not shown (publish statuses are not shown): a refusal of any status, or an acceptance that delivers at most the maximum, is observed.',
  },
  {
    id: 'A.limits.retries',
    section: 'Limits',
    text: 'A message never gets more than 1 + max_retries delivery attempts, even when Svc-Retries asks for more (refusing such a publish is conforming too): max_retries is the plan’s "retry attempts for failed messages", a limit.',
  },
  {
    id: 'A.limits.parallelism',
    section: 'Limits',
    text: 'Never more than max_parallelism deliveries are in flight to one endpoint at once: the plan’s "parallel processing per endpoint" is a limit.',
  },
  {
    id: 'A.limits.topics',
    section: 'Limits',
    text: 'The target never holds more URL groups than max_topics (the plan’s "Topics"): a group past it is refused (or not kept).',
  },
  {
    id: 'A.limits.endpoints-per-topic',
    section: 'Limits',
    text: 'A URL group never holds more endpoints than max_endpoints_per_topic (the plan’s "Endpoints per topic"): endpoints past it are refused (or not kept).',
  },
  {
    id: 'A.limits.queues',
    section: 'Limits',
    text: 'The target never holds more queues than max_queues (the plan’s "Queues"): a new queue past it, whether created or made by a first enqueue, is refused (or not kept).',
  },
  {
    id: 'A.limits.dlq-size',
    section: 'Limits',
    text: 'The dead letter queue never holds more messages than max_dlq_size (the plan’s "Dead letter queue size"): past it, a new dead letter is not kept or an older one is dropped.',
  },
  {
    id: 'A.limits.delay',
    section: 'Limits',
    level: 'OBSERVE',
    text: 'What a delay above max_delay does (refused, capped, or honoured) is not shown: the spec names the limit, not how it is enforced.',
  },
  {
    id: 'A.limits.timeout',
    section: 'Limits',
    level: 'OBSERVE',
    text: 'The plan’s "request timeout, seconds" does not say which request it bounds (the API call or the delivery attempt), so what a slow destination meets is observed.',
  },
  {
    id: 'A.regions.served',
    section: whatItDoes,
    text: '{base_url} is regional (us-east-1, eu-central-1): a message published through each region’s base URL the target declares is delivered.',
  },
  { id: 'A.versioning.v2', section: 'Versioning', text: 'Area A paths carry the major version prefix /v2/.' },
];

export const messagingRuleCatalog: readonly Rule[] = messagingRules.map((rule) => ({
  ...rule,
  area: 'messaging',
  level: rule.level ?? 'MUST',
}));
