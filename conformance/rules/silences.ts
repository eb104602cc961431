/**
 * The places where the spec is silent, as data: every item of shared/notes/where-the-spec-is-silent.md
 * (what the real-world service does where the spec says "not shown" or leaves a reading open) that no
 * observed rule of the catalog already names (the 401 text, the discard status, resp2 on /pipeline and the
 * read-only refusal are rules), each with a stable id. With the catalog's observed rules (level OBSERVE), they are the silence column of
 * `svc-harness rules --coverage`: each is exercised by a silence switch of the reference (a switch's
 * `silence` names the place) that takes another legal choice there, or is not applicable with a reason.
 * The reference follows the notes; the suites must pass an implementation that chooses otherwise.
 */
import type { SilentPlace } from '../../src/suite-kit/suite-api.ts';

export const silentPlaces: readonly SilentPlace[] = [
  // Area B, key-value REST.
  {
    id: 'notes: B.command-name-case',
    area: 'kv',
    text: 'The command name in a path is case-insensitive; the spec shows commands as path segments only.',
  },
  {
    id: 'notes: B.post-root-numbers',
    area: 'kv',
    text: '`POST /` accepts JSON numbers as arguments (stringified); the spec says "command name first, then arguments".',
  },
  {
    id: 'notes: B.content-type',
    area: 'kv',
    text: 'Answers are labelled `application/json`; the spec says "returns JSON" and names no parameters.',
  },
  {
    id: 'notes: B.error-texts',
    area: 'kv',
    text: 'The message after the class token (`ERR Command is not available: …`, the limits’ texts, ACL RESTTOKEN’s error).',
  },
  {
    id: 'notes: B.utf8-replacement-granularity',
    area: 'kv',
    text: 'One U+FFFD per invalid sequence (as a decoder with replacement does); the spec says only "replaced by U+FFFD".',
  },
  {
    id: 'notes: B.max-request-size',
    area: 'kv',
    text: 'The maximum request size (10 MB on the real service) and the daily limit: their values are not shown.',
  },
  {
    id: 'notes: B.monitor-line',
    area: 'kv',
    text: 'A monitor event’s line: Redis’s MONITOR format and quoting, the client shown as `0.0.0.0:0`.',
  },
  {
    id: 'notes: B.subscribe-extras',
    area: 'kv',
    text: 'Pub/sub beyond the spec: `/psubscribe/<pattern>` and its `pmessage` events.',
  },
  {
    id: 'notes: B.sync-token',
    area: 'kv',
    text: 'A read-your-writes sync token header on answers, echoed by clients: optional.',
  },
  {
    id: 'notes: B.json-module',
    area: 'kv',
    text: 'The JSON command group needs a backing store with JSON (Redis 8, redis-stack); Redis 7 has none.',
    notApplicable:
      'no legal choice: Endpoints rule 5 lists the JSON group as supported; the note is about the reference’s backing store',
  },
  // Area A, messaging and workflow.
  {
    id: 'notes: A.publish-answer',
    area: 'messaging',
    text: 'Publish answers 200 (or 201/202) with `{"messageId"}`; a URL group an array of them.',
  },
  {
    id: 'notes: A.destination-refusal',
    area: 'messaging',
    text: 'A destination without `http://` or `https://` is refused with a 400 and an `{error}` body.',
  },
  {
    id: 'notes: A.enqueue',
    area: 'messaging',
    text: '`POST /v2/enqueue/<queue>/<destination>` creates the queue on first use; queue names of letters, digits, `-`, `.`, `_`.',
  },
  {
    id: 'notes: A.publish-options',
    area: 'messaging',
    text: 'Svc-Method, Svc-Delay (`10s`, `5m`), Svc-Not-Before, Svc-Retries (default 3), Svc-Timeout, Svc-Forward-*, Svc-Deduplication-Id.',
  },
  {
    id: 'notes: A.delivery-request',
    area: 'messaging',
    text: 'A delivery carries the body with its content type, the forwarded headers, Svc-Message-Id, Svc-Retried and Svc-Signature.',
  },
  {
    id: 'notes: A.retry-backoff',
    area: 'messaging',
    text: 'Any 2xx is success, anything else is retried after an exponential backoff.',
  },
  {
    id: 'notes: A.source-header',
    area: 'messaging',
    text: '"Headers of the triggering message": with or without the Svc-* instructions to the service.',
  },
  {
    id: 'notes: A.signature-scheme',
    area: 'messaging',
    text: 'Svc-Signature: a JWT, HS256, with iss, sub, iat, nbf, exp, jti and the body’s SHA-256; the spec shows no scheme.',
  },
  {
    id: 'notes: A.keys',
    area: 'messaging',
    text: '`GET /v2/keys`, and the rotate operation’s status (200) and succession (the old next becomes current).',
  },
  {
    id: 'notes: A.queues',
    area: 'messaging',
    text: 'Queue upsert, get and resume; a paused queue delivers oldest first after resume.',
  },
  {
    id: 'notes: A.waiters',
    area: 'messaging',
    text: '`POST /v2/wait/<eventId>` and `GET /v2/waiters/<eventId>`; a waiter’s optional timeout fields.',
  },
  {
    id: 'notes: A.waiter-timeout',
    area: 'messaging',
    text: 'On timeout the service calls `timeoutUrl` with `timeoutHeaders` and `timeoutBody`.',
  },
  {
    id: 'notes: A.error-texts',
    area: 'messaging',
    text: 'The text of an `{error}` body, and the statuses of every messaging endpoint but notify.',
  },
  // Area C, management.
  {
    id: 'notes: C.error-answers',
    area: 'management',
    text: 'The management API’s error statuses (400, 401, 404) and bodies: not documented.',
  },
  {
    id: 'notes: C.extra-fields',
    area: 'management',
    text: 'Fields of the account and index objects beyond the spec’s tables.',
  },
  {
    id: 'notes: C.secrets',
    area: 'management',
    text: 'The account and index objects carry secrets a harness must never write into a report or a log.',
    notApplicable: 'a duty of the harness, not a choice of the service: test/cli/conformance-secrets.test.ts holds it',
  },
  // Observed rules no switch exercises, each with why.
  {
    id: 'A.notify.item-error',
    area: 'messaging',
    text: 'The NotifyResponse item’s error "if the notification failed".',
    notApplicable:
      'a notification failing on its own cannot be arranged through the spec’s API (the reference fails a whole notify through its admin hook: the Errors table’s 500), so no case meets an item’s error to judge',
  },
];
