/**
 * Area A fault switches. Each breaks exactly one rule of conformance/rules/messaging-rules.ts, so the
 * messaging suite can prove it catches that rule; only `--fault NAME` turns one on.
 */
import { defineFaults } from '../fault-registry.ts';

export const messagingFaults = defineFaults([
  // Publish and delivery
  {
    name: 'delivery-drops-body',
    area: 'messaging',
    rule: 'A.publish.delivers',
    description: 'Delivers every message with an empty body.',
  },
  {
    name: 'signature-other-body',
    area: 'messaging',
    rule: 'A.signature.verifiable',
    description: 'Signs the SHA-256 of another body than the one sent.',
  },
  {
    name: 'v1-prefix',
    area: 'messaging',
    rule: 'A.versioning.v2',
    description: 'Serves area A under /v1/ instead of /v2/.',
  },
  {
    name: 'publish-write-behind',
    area: 'messaging',
    rule: 'A.publish.delivers',
    description:
      'Acknowledges a publish while holding it in memory for up to a second before writing it (serve --fault-record FILE keeps the ids acknowledged and persisted): a kill loses what it held.',
    judgedBy: 'soak',
  },
  {
    name: 'message-size-unchecked',
    area: 'messaging',
    rule: 'A.limits.plan',
    description: "Accepts messages above the plan's maximum message size.",
  },
  // Notify and waiters
  {
    name: 'notify-status-200',
    area: 'messaging',
    rule: 'A.notify.status-201',
    description: 'Answers a notify with 200 instead of 201.',
  },
  {
    name: 'notify-first-waiter-only',
    area: 'messaging',
    rule: 'A.notify.one-per-waiter',
    description: 'Notifies only the oldest waiter of an event id.',
  },
  {
    name: 'notify-deduplicated-string',
    area: 'messaging',
    rule: 'A.notify.item-fields',
    description: 'Gives deduplicated as the string "false" in notify items.',
  },
  {
    name: 'waiter-omits-timeout-url',
    area: 'messaging',
    rule: 'A.notify.waiter-fields',
    description: 'Leaves timeoutUrl out of the Waiter in notify items and waiter lists.',
  },
  {
    name: 'workflow-headers-plain',
    area: 'messaging',
    rule: 'A.notify.workflow-headers',
    description: 'Gives the workflow run id and URL headers as plain strings, not arrays.',
  },
  {
    name: 'notification-drops-workflow-headers',
    area: 'messaging',
    rule: 'A.notify.workflow-headers',
    description: 'Calls a notified waiter without the workflow run id and URL headers its Waiter lists.',
  },
  {
    name: 'notify-event-not-delivered',
    area: 'messaging',
    rule: 'A.notify.delivers-event',
    description: 'Calls a notified waiter with an empty body instead of the event data.',
  },
  {
    name: 'notify-event-kept',
    area: 'messaging',
    rule: 'A.notify.lost-without-waiter',
    description: 'Keeps an event nobody waited for and delivers it to the next waiter.',
  },
  {
    name: 'notify-by-run-drops-early',
    area: 'messaging',
    rule: 'A.notify.by-run',
    description: 'Loses an event notified to a workflow run before the run waits for it.',
  },
  {
    name: 'notify-invalid-id-accepted',
    area: 'messaging',
    rule: 'A.notify.invalid-event-400',
    description: 'Accepts an invalid event id (control characters, spaces, over 256 bytes).',
  },
  {
    name: 'notify-omits-workflow-fields',
    area: 'messaging',
    rule: 'A.notify.item-workflow-fields',
    description: 'Leaves workflowRunId and workflowCreatedAt out of notify items, also for waiters of a workflow run.',
  },
  {
    name: 'notify-binary-mangled',
    area: 'messaging',
    rule: 'A.notify.body-forms',
    description: 'Reads notify bodies as UTF-8 text: bytes that are not valid UTF-8 reach the waiter as U+FFFD.',
  },
  {
    name: 'notify-500-plain',
    area: 'messaging',
    rule: 'A.errors.error-object',
    description: 'Answers a notify that fails inside the service with 500 and a plain-text body, not the Error object.',
  },
  {
    name: 'notify-failure-swallowed',
    area: 'messaging',
    rule: 'A.notify.internal-500',
    description: 'Answers a notify that fails inside the service with 201 and an empty array, as if nobody waited.',
  },
  {
    name: 'no-rate-limit',
    area: 'messaging',
    rule: 'A.notify.rate-limit-429',
    description: 'Never answers 429, whatever the request rate.',
  },
  // Authentication and errors
  {
    name: 'auth-any-token',
    area: 'messaging',
    rule: 'A.auth.bearer',
    description: 'Accepts any bearer token, and none.',
  },
  {
    name: 'query-token-refused',
    area: 'messaging',
    rule: 'A.auth.query-token',
    description: 'Refuses the token in the svc_token query parameter.',
  },
  {
    name: 'error-body-plain-text',
    area: 'messaging',
    rule: 'A.errors.error-object',
    description: 'Answers errors with a plain-text body instead of {error}.',
  },
  {
    name: 'publish-no-auth',
    area: 'messaging',
    rule: 'A.auth.required',
    description: 'Accepts a publish without credentials, or with wrong ones.',
  },
  {
    name: 'enqueue-no-auth',
    area: 'messaging',
    rule: 'A.auth.required',
    description: 'Accepts an enqueue without credentials, or with wrong ones.',
  },
  {
    name: 'rotate-no-auth',
    area: 'messaging',
    rule: 'A.auth.required',
    description: 'Rotates the signing keys without credentials, or with wrong ones.',
  },
  {
    name: 'pause-no-auth',
    area: 'messaging',
    rule: 'A.auth.required',
    description: 'Pauses a queue without credentials, or with wrong ones.',
  },
  {
    name: 'notify-by-run-no-auth',
    area: 'messaging',
    rule: 'A.auth.required',
    description: 'Accepts a notify by run without credentials, or with wrong ones.',
  },
  {
    name: 'query-token-any-value',
    area: 'messaging',
    rule: 'A.auth.bearer',
    description: 'Accepts any non-empty svc_token query parameter as the token.',
  },
  {
    name: 'auth-any-scheme',
    area: 'messaging',
    rule: 'A.auth.bearer',
    description: 'Accepts the token after any scheme in Authorization (Token, Basic), not only Bearer.',
  },
  // Signing keys
  {
    name: 'rotate-omits-next',
    area: 'messaging',
    rule: 'A.keys.rotate-shape',
    description: 'Answers a rotation without the next key.',
  },
  {
    name: 'rotate-keeps-current',
    area: 'messaging',
    rule: 'A.keys.rotate-promotes-next',
    description: 'Rotates only the next key; current stays.',
  },
  // Queues
  { name: 'pause-status-204', area: 'messaging', rule: 'A.queue.pause-200', description: 'Answers a pause with 204.' },
  {
    name: 'pause-twice-resumes',
    area: 'messaging',
    rule: 'A.queue.pause-idempotent',
    description: 'Pausing a paused queue resumes it.',
  },
  {
    name: 'paused-queue-refuses',
    area: 'messaging',
    rule: 'A.queue.paused-accepts',
    description: 'Refuses messages enqueued to a paused queue.',
  },
  {
    name: 'paused-queue-delivers',
    area: 'messaging',
    rule: 'A.queue.paused-holds',
    description: 'A paused queue goes on delivering.',
  },
  // Callbacks
  {
    name: 'callback-not-sent',
    area: 'messaging',
    rule: 'A.callback.on-answer',
    description: 'Never calls the Svc-Callback URL.',
  },
  {
    name: 'callback-omits-source-message-id',
    area: 'messaging',
    rule: 'A.callback.fields',
    description: 'Leaves sourceMessageId out of callback bodies.',
  },
  {
    name: 'callback-timestamps-numbers',
    area: 'messaging',
    rule: 'A.callback.field-types',
    description: 'Writes createdAt and notBefore in callback bodies as numbers, not decimal strings.',
  },
  {
    name: 'callback-method-ignored',
    area: 'messaging',
    rule: 'A.callback.config-headers',
    description: 'Ignores Svc-Callback-Method: callbacks are always POST.',
  },
  {
    name: 'callback-forward-dropped',
    area: 'messaging',
    rule: 'A.callback.forward-headers',
    description: 'Does not forward Svc-Callback-Forward-* headers to the callback.',
  },
  {
    name: 'enqueue-ignores-callback',
    area: 'messaging',
    rule: 'A.callback.on-enqueue',
    description: 'Ignores the callback headers on enqueue.',
  },
  {
    name: 'callback-dropped-with-failure-callback',
    area: 'messaging',
    rule: 'A.callback.with-failure-callback',
    description: 'Sends no callback when a failure callback is set too.',
  },
  {
    name: 'failure-callback-early',
    area: 'messaging',
    rule: 'A.failure-callback.after-exhaustion',
    description: 'Sends the failure callback after the first failed attempt, before retries are exhausted.',
  },
  {
    name: 'failure-callback-no-dlq-id',
    area: 'messaging',
    rule: 'A.failure-callback.fields',
    description: 'Leaves dlqId out of failure-callback bodies.',
  },
  {
    name: 'dlq-id-unknown',
    area: 'messaging',
    rule: 'A.failure-callback.dlq-entry',
    description: 'Gives a dlqId in failure callbacks that names no dead letter entry.',
  },
  {
    name: 'failure-callback-method-ignored',
    area: 'messaging',
    rule: 'A.failure-callback.config-headers',
    description: 'Ignores Svc-Failure-Callback-Method: failure callbacks are always POST.',
  },
  {
    name: 'failure-callback-retries-ignored',
    area: 'messaging',
    rule: 'A.failure-callback.config-headers',
    description: 'Ignores Svc-Failure-Callback-Retries: failure callbacks get the default retries.',
  },
  {
    name: 'enqueue-ignores-callback-config',
    area: 'messaging',
    rule: 'A.callback.on-enqueue',
    description:
      'On enqueue, keeps the callback URLs but ignores their -Timeout, -Retries, -Delay, -Method and -Forward-* headers.',
  },
  {
    name: 'failure-callback-forward-dropped',
    area: 'messaging',
    rule: 'A.failure-callback.forward-headers',
    description: 'Does not forward Svc-Failure-Callback-Forward-* headers to the failure callback.',
  },
  // Delivery and signatures, compared with what happened (issue 20)
  {
    name: 'delivery-dropped',
    area: 'messaging',
    rule: 'A.publish.delivers',
    description: 'Loses every published message: nothing is sent, and the message counts as delivered.',
  },
  {
    name: 'retry-signature-expired',
    area: 'messaging',
    rule: 'A.signature.verifiable',
    description: 'Signs retries with a token that expired ten minutes ago.',
  },
  {
    name: 'callback-signed-wrong-sub',
    area: 'messaging',
    rule: 'A.signature.verifiable',
    description: "Signs callbacks and failure callbacks for the source message's URL, not the URL called (sub).",
  },
  {
    name: 'source-header-drops-callback-headers',
    area: 'messaging',
    rule: 'A.callback.fields',
    description: 'Leaves the publish’s callback headers (Svc-Callback*, Svc-Failure-Callback*) out of sourceHeader.',
  },
  {
    name: 'source-header-forward-renamed',
    area: 'messaging',
    rule: 'A.callback.fields',
    description: 'Keeps the publish’s *-Forward-<Name> headers in sourceHeader under <Name> instead of their own name.',
  },
  {
    name: 'notify-integers-as-doubles',
    area: 'messaging',
    rule: 'A.notify.waiter-fields',
    description: 'Writes each notify item’s waiter deadline as a double (1764000000.0) instead of an integer.',
  },
  {
    name: 'waiter-deadline-ms',
    area: 'messaging',
    rule: 'A.timestamps.units',
    description: 'Writes each notify item’s waiter deadline in Unix milliseconds instead of seconds.',
  },
  {
    name: 'callback-integers-as-doubles',
    area: 'messaging',
    rule: 'A.callback.field-types',
    description: 'Writes the integer fields of callback bodies as doubles (status 200.0, retried 0.0, maxRetries 1.0).',
  },
  {
    name: 'callback-retried-off-by-one',
    area: 'messaging',
    rule: 'A.callback.fields',
    description: 'Gives retried one higher than the retries made in callback bodies.',
  },
  {
    name: 'callback-status-first-attempt',
    area: 'messaging',
    rule: 'A.callback.fields',
    description: "Reports the first attempt's status in every callback of a message, not the status of the attempt.",
  },
  {
    name: 'callback-body-raw',
    area: 'messaging',
    rule: 'A.callback.field-types',
    description: "Puts the destination's response body into callback bodies as text, not base64.",
  },
  {
    name: 'source-body-unencoded',
    area: 'messaging',
    rule: 'A.callback.field-types',
    description: 'Puts the published body into callback bodies as text (sourceBody), not base64.',
  },
  {
    name: 'callback-header-content-type-only',
    area: 'messaging',
    rule: 'A.callback.fields',
    description: "Keeps only the content type of the destination's response headers in callback bodies.",
  },
  {
    name: 'callback-created-at-seconds',
    area: 'messaging',
    rule: 'A.callback.fields',
    description: 'Writes createdAt and notBefore in callback bodies in seconds, not milliseconds (still digits).',
  },
  {
    name: 'callback-not-before-ignores-delay',
    area: 'messaging',
    rule: 'A.callback.fields',
    description: 'Writes notBefore as createdAt in callback bodies, whatever delay the message had.',
  },
  {
    name: 'callback-max-retries-default',
    area: 'messaging',
    rule: 'A.callback.fields',
    description: 'Writes maxRetries as the default (3) in callback bodies, not the retries asked.',
  },
  // Limits and regions
  {
    name: 'retries-above-plan',
    area: 'messaging',
    rule: 'A.limits.retries',
    description: "Accepts and obeys a Svc-Retries above the plan's max_retries.",
  },
  {
    name: 'parallelism-unlimited',
    area: 'messaging',
    rule: 'A.limits.parallelism',
    description: "Delivers to one endpoint with no regard to the plan's max_parallelism.",
  },
  {
    name: 'region-secondary-drops',
    area: 'messaging',
    rule: 'A.regions.served',
    description: 'Regions other than the default one accept a publish (200 with a message id) but never deliver it.',
  },
  // URL groups (topics)
  {
    name: 'callback-omits-topic-name',
    area: 'messaging',
    rule: 'A.callback.fields',
    description: "Leaves topicName out of the callback bodies of a URL group's messages.",
  },
  {
    name: 'callback-endpoint-name-wrong',
    area: 'messaging',
    rule: 'A.callback.fields',
    description: "Gives the URL group's name as endpointName in callback bodies, not the endpoint's name.",
  },
  {
    name: 'failure-callback-omits-endpoint-name',
    area: 'messaging',
    rule: 'A.failure-callback.fields',
    description: "Leaves endpointName out of the failure-callback bodies of a URL group's messages.",
  },
  {
    name: 'topic-limit-unchecked',
    area: 'messaging',
    rule: 'A.limits.topics',
    description: "Creates URL groups past the plan's max_topics.",
  },
  {
    name: 'endpoint-limit-unchecked',
    area: 'messaging',
    rule: 'A.limits.endpoints-per-topic',
    description: "Adds endpoints to a URL group past the plan's max_endpoints_per_topic.",
  },
  {
    name: 'queue-limit-unchecked',
    area: 'messaging',
    rule: 'A.limits.queues',
    description: "Creates queues (by upsert or a first enqueue) past the plan's max_queues.",
  },
  {
    name: 'dlq-limit-unchecked',
    area: 'messaging',
    rule: 'A.limits.dlq-size',
    description: "Keeps every dead letter: the dead letter queue grows past the plan's max_dlq_size.",
  },
]);

export type MessagingFaultName = (typeof messagingFaults)[number]['name'];

/** A typed view of the switches turned on for area A. */
export type MessagingFaultCheck = (name: MessagingFaultName) => boolean;
