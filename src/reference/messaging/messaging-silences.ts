/**
 * Area A's silence switches: each makes the reference take another legal choice where the spec says
 * "not shown" or leaves a reading open (shared/notes/where-the-spec-is-silent.md lists the reference's
 * own). With any of them on, no case of the suites may fail.
 */
import { defineSilences } from '../fault-registry.ts';

export const messagingSilences = defineSilences([
  // Statuses and answer shapes that are not shown.
  {
    name: 'publish-answers-202',
    area: 'messaging',
    silence: ['A.publish.response-shape', 'notes: A.publish-answer'],
    description: 'a publish is answered 202 rather than 200 (publish statuses: not shown)',
  },
  {
    name: 'publish-answer-own-shape',
    area: 'messaging',
    silence: 'notes: A.publish-answer',
    description: 'a publish answers {"id", "url", "createdAt"}: another field name for the id, and extra fields',
  },
  {
    name: 'message-ids-uuid',
    area: 'messaging',
    silence: 'notes: A.publish-answer',
    description: 'message ids are bare UUIDs, not msg_… (their format is not shown)',
  },
  {
    name: 'rotate-answers-201',
    area: 'messaging',
    silence: ['A.keys.rotate-status', 'notes: A.keys'],
    description: 'the rotate operation answers 201 (its status is not shown)',
  },
  {
    name: 'error-statuses-own',
    area: 'messaging',
    silence: ['A.errors.other-statuses', 'notes: A.destination-refusal'],
    description:
      'refusals other than notify’s answer 422 (an invalid request, a destination that is not http(s), a limit) or 403 (credentials): statuses the spec does not show',
  },
  {
    name: 'error-texts-own',
    area: 'messaging',
    silence: 'notes: A.error-texts',
    description: 'every {error} body’s text is its status’s own text (Bad Request, Unauthorized): texts are not shown',
  },
  {
    name: 'notify-by-run-answers-202',
    area: 'messaging',
    silence: 'A.notify.by-run-shapes',
    description: 'a notify by workflow run answers 202 with no body (its response shape is not shown)',
  },
  {
    name: 'url-group-first-endpoint-only',
    area: 'messaging',
    silence: 'A.url-group.fan-out',
    description: 'a message to a URL group reaches its first endpoint only (which endpoints it reaches is not shown)',
  },
  // Optional publish headers ignored: the implementation's own defaults.
  {
    name: 'retries-header-ignored',
    area: 'messaging',
    silence: ['notes: A.publish-options', 'A.publish.headers'],
    description: 'Svc-Retries is ignored: every message gets the service’s own default retries (3, within the plan)',
  },
  {
    name: 'delay-header-ignored',
    area: 'messaging',
    silence: 'notes: A.publish-options',
    description: 'Svc-Delay and Svc-Not-Before are ignored: every message is delivered at once',
  },
  {
    name: 'timeout-header-ignored',
    area: 'messaging',
    silence: 'A.publish.headers',
    description: 'Svc-Timeout is ignored: every delivery attempt has the plan’s request timeout',
  },
  {
    name: 'deduplication-ignored',
    area: 'messaging',
    silence: 'A.publish.headers',
    description: 'Svc-Deduplication-Id is ignored: every publish is a message of its own',
  },
  {
    name: 'notify-data-octet-stream',
    area: 'messaging',
    silence: 'A.notify.body-content-type',
    description: 'a waiting step gets the event data labelled application/octet-stream, whatever it was sent as',
  },
  {
    name: 'plan-timeout-for-calls-only',
    area: 'messaging',
    silence: 'A.limits.timeout',
    description:
      'the plan’s request timeout bounds API calls, not delivery attempts, which wait up to 30 s (the spec does not say which request it bounds)',
  },
  {
    name: 'queue-operations-own-statuses',
    area: 'messaging',
    silence: ['notes: A.enqueue', 'notes: A.queues', 'A.queue.resume'],
    description:
      'an enqueue and a queue upsert answer 201, a resume 204 with no body (the real service’s queue operations: not in the spec)',
  },
  {
    name: 'delivery-without-id-headers',
    area: 'messaging',
    silence: 'notes: A.delivery-request',
    description: 'deliveries carry no Svc-Message-Id or Svc-Retried header (the real service’s, not the spec’s)',
  },
  // Limits enforced by capping rather than refusal.
  {
    name: 'limits-capped',
    area: 'messaging',
    silence: 'A.limits.delay',
    description:
      'a Svc-Delay or Svc-Not-Before past max_delay, and a Svc-Retries past max_retries, are capped to the plan rather than refused',
  },
  {
    name: 'oversize-truncated',
    area: 'messaging',
    silence: 'A.publish.headers',
    description:
      'a message above max_message_size is accepted and delivered cut to the maximum (the payload rules are not shown)',
  },
  // Signature details beyond what the target declares (a JWT, HS256, the body's SHA-256, sub).
  {
    name: 'signature-without-jti',
    area: 'messaging',
    silence: 'notes: A.signature-scheme',
    description: 'signatures carry no jti claim (optional in RFC 7519)',
  },
  {
    name: 'retry-token-reused',
    area: 'messaging',
    silence: 'notes: A.signature-scheme',
    description: 'a retry, an identical re-send, carries the token of the first attempt (the same jti)',
  },
  {
    name: 'signature-body-unpadded',
    area: 'messaging',
    silence: 'notes: A.signature-scheme',
    description: 'the body claim’s base64url drops its = padding (the reference keeps it)',
  },
  // Timing within the waits.
  {
    name: 'slower-retries-later-callbacks',
    area: 'messaging',
    silence: 'notes: A.retry-backoff',
    description:
      'retries back off from 300 ms (doubling), and callbacks and failure callbacks go out 500 ms after the answer they report',
  },
  // Readings of what the spec leaves open.
  {
    name: 'source-header-delivered-only',
    area: 'messaging',
    silence: 'notes: A.source-header',
    description:
      'a callback’s sourceHeader holds only the headers the message carried to its destination (content type, forwarded headers), no Svc-* instructions',
  },
  {
    name: 'waiter-omits-unset-timeouts',
    area: 'messaging',
    silence: 'notes: A.waiters',
    description:
      'a Waiter created without timeoutUrl, timeoutBody or timeoutHeaders leaves them out (no Required column)',
  },
  {
    name: 'waiter-timeout-silent',
    area: 'messaging',
    silence: ['A.waiter.deadline', 'notes: A.waiter-timeout'],
    description: 'a waiter whose deadline passes is dropped without a timeout request (that transition is not shown)',
  },
]);

export type MessagingSilenceName = (typeof messagingSilences)[number]['name'];

export type MessagingSilenceCheck = (name: MessagingSilenceName) => boolean;
