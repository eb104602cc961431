/**
 * Survivors that are not bugs: a mutant id (`<operator id> @ <route class>`), or a pattern of them
 * where `*` stands for any text, → one line saying why no conforming client or receiver could tell, or
 * which part of the spec leaves it open ("not shown"). A survivor listed here counts as equivalent,
 * not survived; every other survivor is a gap of the suites. Keep patterns narrow: an operator family
 * on one route class, never a whole area.
 */
export const equivalentMutants: Readonly<Record<string, string>> = {
  // Area A: only notify's statuses are given ("Status codes of the other messaging endpoints: not
  // shown"), and the rotate status explicitly is not.
  'status.* @ messaging POST /v2/keys/rotate': 'the rotate status is not shown (spec, area A endpoints, rule 3)',
  // Publish's statuses are not shown, but a refusal answered 2xx is an auth bug (A.auth.required), so
  // status.4xx-to-200 is left out.
  'status.2xx-to-* @ messaging POST /v2/publish/*': "publish's success status is not shown (area A errors)",
  'status.200-to-201 @ messaging POST /v2/publish/*': "publish's success status is not shown (area A errors)",
  'status.400-to-* @ messaging POST /v2/publish/*': "publish's refusal statuses are not shown (area A errors)",
  'status.401-to-403 @ messaging POST /v2/publish/*':
    'the spec gives 401 for notify only; publish refused with 403 is not shown',
  // Enqueue's success and refusal statuses are not shown; a refusal answered 2xx is an auth bug
  // (A.auth.required lists enqueue among the operations), so status.4xx-to-200 is left out.
  'status.2xx-to-* @ messaging POST /v2/enqueue/*': 'enqueue’s success status is not shown; the adapter takes any 2xx',
  'status.200-to-201 @ messaging POST /v2/enqueue/*':
    'enqueue’s success status is not shown; the adapter takes any 2xx',
  'status.400-to-* @ messaging POST /v2/enqueue/*':
    'enqueue’s refusal statuses are not shown (400 answered 401 or 500 is a refusal either way)',
  'status.401-to-403 @ messaging POST /v2/enqueue/*':
    'the spec gives 401 for notify only; enqueue refused with 403 is not shown',
  'status.401-to-403 @ messaging POST /v2/queues/*/pause':
    'the spec gives 401 for notify only; a refusal of pause with another 4xx is not shown',
  'status.401-to-403 @ messaging GET /v2/keys': 'reading the keys is not in the spec; any refusal will do',
  // The operations the messaging adapter reaches are not in the spec: any 2xx is accepted (a 201 for a
  // 200 is no bug there), and a refused or failed step only arranges a case, which then ends BLOCKED
  // on A.errors.other-statuses (messaging-adapter.ts): nothing the spec says has broken.
  'status.200-to-201 @ messaging GET /v2/keys': 'reading the keys is an adapter operation, not in the spec',
  'status.2xx-to-* @ messaging GET /v2/keys': 'reading the keys is an adapter operation; a refusal blocks the case',
  'status.* @ messaging POST /v2/wait/*': 'creating a waiter is an adapter operation; a refusal blocks the case',
  'status.* @ messaging POST /v2/queues': 'creating a queue is an adapter operation; a refusal blocks the case',
  'status.* @ messaging POST /v2/queues/*/resume':
    'resuming a queue is an adapter operation; a refusal blocks the case',
  'status.* @ messaging DELETE /v2/queues/*': 'deleting a queue is an adapter clean-up, never judged',
  'json.* @ messaging DELETE /v2/queues/*': "deleting a queue is an adapter clean-up; its answer's body is never read",
  'status.* @ messaging DELETE /v2/topics/*': 'deleting a URL group is an adapter clean-up, never judged',
  'json.* @ messaging DELETE /v2/topics/*':
    "deleting a URL group is an adapter clean-up; its answer's body is never read",
  // COMMAND's reply is Redis's own; the suites read it as a catalog (each command's or subcommand's name,
  // flags and first key) to know which writes to try, never judge it, and fall back to a fixed list of
  // writes when it is unusable. Arrays six to eight deep in a POST / answer are only inside its key
  // specifications, which the catalog does not read (every reply the suites judge is at most five deep:
  // XREAD's fields, held to their order by kv.commands.group.stream).
  'json.item*@6 @ kv POST /':
    "arrays six deep in a POST / answer are COMMAND's key specifications, read by no case (the catalog reads names, flags, first keys)",
  'json.item*@7 @ kv POST /':
    "arrays seven deep in a POST / answer are COMMAND's key specifications, read by no case (the catalog reads names, flags, first keys)",
  'json.item*@8 @ kv POST /':
    "arrays eight deep in a POST / answer are COMMAND's key specifications, read by no case (the catalog reads names, flags, first keys)",
  'status.* @ messaging GET /v2/dlq/*': 'reading a dead letter is an adapter operation; a refusal blocks the case',
  'status.* @ messaging GET /v2/dlq':
    'listing the dead letters is an adapter operation (counting them for A.limits.dlq-size); a failure blocks the case',
  'json.number-off-by-one @ messaging GET /v2/dlq':
    'the dead letters are listed to count them (A.limits.dlq-size) and find a message by id; the numbers of their records are not shown ("fields of dead letter queue records: not shown")',
  'json.* @ messaging GET /v2/dlq/*':
    'reading a dead letter is an adapter operation ("fields of dead letter queue records: not shown")',
  'json.field-* @ messaging GET /v2/dlq':
    'the dead letters are only counted (A.limits.dlq-size: the length of each page of messages, and its cursor); the fields of their records are not shown ("fields of dead letter queue records: not shown") and not read',
  // Adding endpoints to a URL group is an adapter operation (the spec lists no topics endpoint, and the
  // statuses of messaging endpoints other than notify are not shown): the adapter takes any 2xx, a
  // refused step blocks its case (A.errors.other-statuses), and past a limit the cases accept any
  // refusal, or a group not kept (they read it back).
  'status.* @ messaging POST /v2/topics/*':
    'adding endpoints is an adapter operation: any 2xx is taken, a refused step blocks the case, and past a limit any refusal (or not keeping it) is accepted',
  // Enqueue's success answer is not shown (as publish's); the adapter reads its status only.
  'json.field-*:messageId @ messaging POST /v2/enqueue/*':
    "enqueue's success answer is not shown; the adapter reads its status only (a refusal's error object is judged)",
  'json.field-* @ messaging GET /v2/topics':
    'the URL groups are listed only to count them (A.limits.topics); how a group is listed is not in the spec',
  // The URL groups and queues are listed only to count them (messaging-adapter.ts, `listLength`): what
  // each item holds, and in what order, is read by no case, and how a group or queue is listed is not in
  // the spec. A mutant that keeps the count (an item changed, reordered) is equivalent there. So is one
  // that drops an item: the count only bounds what is held from above, beside the group or queue past the
  // limit, which the cases read back directly (a listing short of one is laxer, never hides a kept one).
  'json.item-dropped* @ messaging GET /v2/topics':
    'the URL groups are counted only as an upper bound beside reading the group past the limit back (A.limits.topics)',
  'json.item-dropped* @ messaging GET /v2/queues':
    'the queues are counted only as an upper bound beside reading the queue past the limit back (A.limits.queues)',
  'json.string-* @ messaging GET /v2/topics': 'the URL groups are listed only to count them (A.limits.topics)',
  'json.number-* @ messaging GET /v2/topics': 'the URL groups are listed only to count them (A.limits.topics)',
  'json.integer-as-double @ messaging GET /v2/topics': 'the URL groups are listed only to count them (A.limits.topics)',
  'json.big-integer-rounded @ messaging GET /v2/topics':
    'the URL groups are listed only to count them (A.limits.topics)',
  'json.items-reversed* @ messaging GET /v2/topics': 'the URL groups are listed only to count them (A.limits.topics)',
  'json.string-* @ messaging GET /v2/queues': 'the queues are listed only to count them (A.limits.queues)',
  'json.number-* @ messaging GET /v2/queues': 'the queues are listed only to count them (A.limits.queues)',
  'json.integer-as-double @ messaging GET /v2/queues': 'the queues are listed only to count them (A.limits.queues)',
  'json.big-integer-rounded @ messaging GET /v2/queues': 'the queues are listed only to count them (A.limits.queues)',
  'json.items-reversed* @ messaging GET /v2/queues': 'the queues are listed only to count them (A.limits.queues)',
  'json.field-* @ messaging GET /v2/queues': 'the queues are listed only to count them (A.limits.queues)',
  'status.* @ messaging GET /v2/queues':
    'listing the queues is an adapter operation (counting them for A.limits.queues); a failure blocks the case',
  'headers.request-ignored:content-type @ messaging POST /v2/notify/*':
    "notify's event data reaches the waiter as its bytes; the spec names the content types notify takes, not what it does with the header",
  'status.* @ messaging GET /v2/topics/*':
    'reading a URL group back is an adapter operation; a refusal blocks the case',
  'json.* @ messaging GET /v2/topics/*':
    'reading a URL group back is an adapter operation (the spec names groups, not how they are read)',
  'json.* @ messaging POST /v2/wait/*':
    "creating a waiter is an adapter operation; its answer's shape is not in the spec",
  // Notify's numbers are a waiter's deadline (unix seconds) and its run's creation time (ms). The spec
  // gives nothing to compare them with to the unit: the waiter was made by the adapter at a moment known
  // only to within a request, and whether a deadline rounds up or down is not shown.
  // "201: JSON array of NotifyResponse items, one per notified waiter": no order is given, and the suite
  // matches items to waiters by their URL (issue 35: order where none is promised is no rule).
  'json.items-reversed@0 @ messaging POST /v2/notify/*':
    'notify’s items are one per waiter, in no order the spec gives',
  'json.number-off-by-one @ messaging POST /v2/notify/*':
    "notify's deadline and workflowCreatedAt have no exact value in the spec; one unit is within its timing",
  // A header forwarded to the destination (`Forward-<Name>`) is in the silent notes only: the spec shows
  // no publish header but the callback ones (A.publish.headers is observed), so a delivery without it
  // breaks no rule. The suites forward only X-Svc-* headers.
  'headers.*:x-svc-* @ delivery message':
    'Forward-<Name> to the destination is not in the spec (publish headers are "not shown")',
  // The direct publish's own Svc-Method is in the silent notes only (the spec names the callback's and
  // failure callback's, "as the corresponding direct-publish header"): a delivery by POST breaks no rule.
  'headers.request-ignored:svc-method @ messaging POST /v2/publish/*':
    'Svc-Method on a direct publish is not in the spec (publish headers are "not shown")',
  // The destination's answer headers in a callback body: its framing (Content-Length) is the transport's,
  // and which framing headers a target's HTTP client lists is not shown.
  'json.field-*:content-length @ delivery *':
    "a callback body's header object without the destination's Content-Length: framing, not a header the spec names",
  // A forward header the service never saw is missing from a callback's sourceHeader too ("Headers of
  // the triggering message", A.callback.fields): not equivalent (messaging.callback.fields catches it).
  // The destination's content type is in the silent notes only (A.publish.headers observes it).
  'headers.*:content-type @ delivery message':
    'the content type a destination gets is in the silent notes only (publish headers "not shown"; A.publish.headers observes it)',
  'headers.content-type:* @ delivery message':
    'the content type a destination gets is in the silent notes only (publish headers "not shown"; A.publish.headers observes it)',
  // Publish's answer: "Shape of response: not shown"; the cases read a message id from it where there is one.
  'json.field-*:messageId @ messaging POST /v2/publish/*': "the shape of publish's answer is not shown",
  // Deliveries: no latency bound, any 2xx is an answer, and the delivery's own headers are not named.
  'delivery.delayed @ *': 'the spec bounds no delivery latency (a delay only makes it later, never early)',
  'status.200-to-201 @ delivery *': 'the destination answered a 2xx either way',
  'headers.*:svc-message-id @ delivery *': 'the spec names no message-id header on deliveries or callbacks',
  // The spec counts retries in the callback body (`retried`); the header is only in the silent notes.
  'headers.*:svc-retried @ delivery failure-callback':
    'the spec names no retried header; a failure callback carries `retried` in its body, which is judged',
  // A target that parses the JSON body without the request's content type still conforms.
  'headers.request-ignored:content-type @ management *': 'area C asks for a JSON body, not for its content type header',
  // Area A and C answers: the spec names no content type outside area B.
  'headers.*content-type* @ management *': 'area C names no content type for its answers (JSON is implied, not stated)',
  // Its answers' content type only: a publish whose own Content-Type the target ignores delivers without
  // it, and the callbacks' sourceHeader shows the difference (A.callback.fields), so request-ignored is left out.
  'headers.dropped:content-type @ messaging *': 'area A names no content type for its answers',
  'headers.renamed:content-type @ messaging *': 'area A names no content type for its answers',
  'headers.content-type:* @ messaging *':
    'area A names no content type for its answers (only for notify’s request body)',
  'headers.*content-type* @ delivery callback': 'the callback body is "a JSON object"; its content type is not named',
  'headers.*content-type* @ delivery failure-callback':
    'the failure-callback body is "a JSON object"; its content type is not named',
  // Area C: "error statuses and bodies: not shown".
  'status.400-to-* @ management *': 'area C error statuses are not shown',
  'status.401-to-403 @ management *': 'area C error statuses are not shown (Basic authentication names no status)',
  'json.* @ management GET /svc/user': 'the unversioned path answers an area C error, whose body is not shown',
  'headers.* @ management GET /svc/user': 'the unversioned path answers an area C error, whose headers are not shown',
  'json.field-*:error @ management *': 'area C error bodies are not shown (its errors are judged as refusals only)',
  'status.4xx-to-200 @ management GET /svc/user':
    'the unversioned path is not in the spec; what it answers is not shown',
  // The suite deletes what it created after each case; the spec shows no delete, so its answer is recorded only.
  'status.* @ management DELETE /v2/search/*': 'DELETE /v2/search/{id} is not in the spec (a clean-up, recorded only)',
  'json.* @ management DELETE /v2/search/*': 'DELETE /v2/search/{id} is not in the spec (a clean-up, recorded only)',
  // throughput_vector is "throughput over time": which points, in which order, is not shown.
  'json.item-*@1 @ management *': 'the points of throughput_vector (throughput over time) are not shown',
  'json.items-reversed@1 @ management *': 'the order of throughput_vector points is not shown',
  'status.4xx-to-200 @ management GET /search/*':
    'the unversioned path is not in the spec; what it answers is not shown',
  'json.* @ management GET /search/*': 'the unversioned path answers an area C error, whose body is not shown',
  'headers.* @ management GET /search/*': 'the unversioned path answers an area C error, whose headers are not shown',
  // Area B names no request content type: POST / reads its body as a JSON array, the path form its body
  // as the last argument, whatever the header says.
  'headers.request-ignored:content-type @ kv POST *':
    'area B names no request content type (a JSON array body, or the body as the last argument)',
  // resp2 on /pipeline: "the real-world look-alikes concatenate the raw replies; the spec does not say"
  // (B.observe.pipeline-resp2), so neither its bytes nor its label is judged.
  'headers.content-type:octet-stream-to-json @ kv POST /pipeline':
    'resp2 on /pipeline is not shown (B.observe.pipeline-resp2): its label is recorded, not judged',
  // A discarded transaction's status: "the natural status is 400" (where the spec is silent); recorded by
  // kv.multi-exec.discard-status (B.observe.discard-status), never judged.
  'status.400-to-* @ kv POST /multi-exec': "a discarded transaction's status is not shown (B.observe.discard-status)",
  // Area B, HEAD: no body, and HTTP lets a HEAD answer leave out headers (RFC 9110 §9.3.2, "SHOULD send
  // the same"); a content type it does send is judged (B.format.json), a missing one breaks no MUST.
  'headers.dropped:content-type @ kv HEAD /{command}/*': 'a HEAD answer may omit its content type (RFC 9110 SHOULD)',
  'headers.renamed:content-type @ kv HEAD /{command}/*': 'a HEAD answer may omit its content type (RFC 9110 SHOULD)',
  // Area B, nested replies: every nested reply the suites judge is held to its content in order, in any
  // nesting (conformance/support/nested-reply.ts): an item dropped, repeated or reordered there is caught.

  // Headers the spec never names.
  'headers.*:www-authenticate @ *': 'the spec never names WWW-Authenticate',
};

function patternOf(key: string): RegExp {
  return new RegExp(
    `^${key
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
}

const patterns = Object.entries(equivalentMutants).map(([key, reason]) => [patternOf(key), reason] as const);

/** The documented reason a mutant is equivalent, or undefined. */
export function equivalenceOf(id: string): string | undefined {
  return patterns.find(([pattern]) => pattern.test(id))?.[1];
}
