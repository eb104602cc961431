/**
 * Area A: the dimensions each rule speaks about, and where it does not apply (with why). The cells
 * are the cross product of each grid; cases declare the cells they check (`covers`), and
 * `svc-harness rules --coverage` prints the matrix. A rule left out here is one cell.
 */
import type { RuleDimensions } from '../../src/suite-kit/suite-api.ts';
import { notApplicable as na } from './dimensions.ts';

const refused = ['none', 'wrong-bearer', 'bearer-alone', 'other-scheme', 'wrong-query'] as const;
const notNotify = ['publish', 'enqueue', 'rotate', 'pause', 'notify-by-run'] as const;

/**
 * The fields that belong to a callback but not to every message, each with why no case can see them
 * (topicName and endpointName are covered by the URL-group cases, url-groups.cases.ts).
 */
const conditionalFields = [
  na(
    { 'callback-field': ['scheduleId'] },
    'only for a message sent by a schedule, which the reference does not have yet',
  ),
];
const callerIP = na(
  { 'callback-field': ['callerIP'] },
  'the caller address the target sees depends on the network between (proxies, NAT): only its type is judged',
);

export const messagingRuleDimensions: readonly RuleDimensions[] = [
  // Credentials on every operation: each refused kind, and the accepted ones.
  {
    rule: 'A.auth.required',
    grids: [['messaging-operation', 'messaging-credentials']],
    notApplicable: [
      na(
        { 'messaging-credentials': ['standard-bearer', 'standard-query'] },
        'accepted credentials: A.auth.bearer and A.auth.query-token',
      ),
    ],
  },
  {
    rule: 'A.auth.bearer',
    grids: [['messaging-operation', 'messaging-credentials']],
    notApplicable: [
      na(
        { 'messaging-operation': [...notNotify], 'messaging-credentials': [...refused] },
        'a refusal status is shown for notify only: A.auth.required judges the others',
      ),
      na({ 'messaging-credentials': ['standard-query'] }, 'the query parameter is A.auth.query-token'),
      na(
        { 'messaging-credentials': ['standard-bearer'] },
        'the Bearer token is every case’s means: refusing it blocks them all (one root cause), no verdict here',
      ),
    ],
  },
  {
    rule: 'A.auth.query-token',
    grids: [['messaging-operation']],
    notApplicable: [
      na(
        { 'messaging-operation': ['rotate'] },
        'not sent: a rotation mid-run changes the keys every other case verifies with',
      ),
    ],
  },
  {
    rule: 'A.errors.error-object',
    grids: [['messaging-operation']],
  },

  // Every request a receiver gets is verifiable.
  { rule: 'A.signature.verifiable', grids: [['delivery-kind', 'send-form']] },

  // Every callback field compared with the delivery that caused it.
  {
    rule: 'A.callback.fields',
    grids: [['callback-field']],
    notApplicable: [
      ...conditionalFields,
      callerIP,
      na({ 'callback-field': ['dlqId'] }, 'a failure callback’s field only (A.failure-callback.fields)'),
    ],
  },
  {
    rule: 'A.callback.field-types',
    grids: [['callback-field']],
    notApplicable: [
      ...conditionalFields,
      na({ 'callback-field': ['dlqId'] }, 'a failure callback’s field only (A.failure-callback.fields)'),
    ],
  },
  {
    rule: 'A.failure-callback.fields',
    grids: [['callback-field']],
    notApplicable: [...conditionalFields, callerIP],
  },

  // The callback headers, each kind, published and enqueued.
  {
    rule: 'A.callback.config-headers',
    grids: [['callback-header']],
    notApplicable: [
      na({ 'callback-header': ['url'] }, 'the URL header is A.callback.on-answer'),
      na({ 'callback-header': ['forward'] }, 'A.callback.forward-headers'),
    ],
  },
  {
    rule: 'A.failure-callback.config-headers',
    grids: [['callback-header']],
    notApplicable: [
      na({ 'callback-header': ['url'] }, 'the URL header is A.failure-callback.after-exhaustion'),
      na({ 'callback-header': ['forward'] }, 'A.failure-callback.forward-headers'),
    ],
  },
  { rule: 'A.callback.on-enqueue', grids: [['callback-kind', 'callback-header']] },

  // Known and unknown ids (issue 35, item 5): the paths that name one.
  { rule: 'A.notify.status-201', grids: [['resource-id']] },
  {
    rule: 'A.notify.by-run',
    grids: [['resource-id']],
    notApplicable: [
      na(
        { 'resource-id': ['unknown'] },
        'a run id no workflow has: the path’s request and response shapes are not shown (A.notify.by-run-shapes)',
      ),
    ],
  },
  {
    rule: 'A.queue.pause-200',
    grids: [['resource-id']],
    notApplicable: [
      na(
        { 'resource-id': ['unknown'] },
        'pausing a queue never created: its answer is not shown (Errors: the other endpoints’ statuses)',
      ),
    ],
  },
  // Times in the unit their table gives.
  { rule: 'A.timestamps.units', grids: [['time-unit']] },

  // Notify's body forms.
  { rule: 'A.notify.body-forms', grids: [['notify-body']] },

  // max_queues bounds a new queue however it comes to exist (max_topics, max_endpoints_per_topic and
  // max_dlq_size are one cell each: a group or a dead letter comes to exist one way).
  { rule: 'A.limits.queues', grids: [['queue-creation']] },
];
