/**
 * Area B (key-value REST) rules of the spec. Ids are stable: suites, expectations files and the
 * reference's fault switches refer to them. `section` is the spec heading path (` > ` between levels).
 */
import type { Rule } from '../../src/suite-kit/suite-api.ts';

const endpoints = 'Endpoints > Area B, key-value REST ({kv_url})';
const responses = 'Resources and their fields > Key-value REST responses (area B)';
const errors = 'Errors';
const auth = 'Authentication';
const limits = 'Limits';
const events = 'Events';

type KvRule = Omit<Rule, 'area' | 'level'> & { readonly level?: Rule['level'] };

const kvRules: readonly KvRule[] = [
  // Methods and request forms
  { id: 'B.methods.allowed', section: endpoints, text: 'HEAD, GET, POST and PUT are accepted on command paths.' },
  { id: 'B.methods.other-405', section: errors, text: 'Any other HTTP method gives 405.' },
  {
    id: 'B.path.command-args',
    section: endpoints,
    text: 'The command name and its arguments are path segments, in protocol order.',
  },
  { id: 'B.path.percent-decoding', section: endpoints, text: 'Each path segment is one argument, percent-decoded.' },
  {
    id: 'B.post.body-last-arg',
    section: endpoints,
    text: 'With POST on a command path the body is appended as the last argument.',
  },
  {
    id: 'B.post.query-args',
    section: endpoints,
    text: 'Further arguments go in the query string as NAME=value, after the body.',
  },
  {
    id: 'B.root.json-array',
    section: endpoints,
    text: 'POST / takes a JSON array: command name first, then arguments in order.',
  },
  { id: 'B.versioning.unversioned', section: 'Versioning', text: 'Area B paths carry no version prefix.' },

  // Response bodies and statuses
  {
    id: 'B.response.result-shape',
    section: responses,
    text: 'Success is a JSON object with the single field result: null, an integer, a string, or an array of strings and nulls.',
  },
  {
    id: 'B.response.error-shape',
    section: responses,
    text: 'Failure is a JSON object with the single field error, a string beginning with an error class token.',
  },
  { id: 'B.status.ok-200', section: errors, text: 'An accepted and executed command answers 200.' },
  {
    id: 'B.status.syntax-400',
    section: errors,
    text: 'A syntax error (malformed body, wrong argument count) answers 400 with an error object.',
  },
  {
    id: 'B.status.unsupported-400',
    section: errors,
    text: 'An invalid or unsupported command answers 400 with an error object.',
  },
  {
    id: 'B.status.exec-failure-400',
    section: errors,
    text: 'A command execution failure (e.g. wrong type) answers 400 with an error object.',
  },
  {
    id: 'B.errors.class-token',
    section: errors,
    // Spec "Errors": "the text starts with a class token (for example WRONGPASS for a bad password, ERR for
    // general failures such as wrong argument count or non-integer value)". Held for the failures of
    // commands and requests; a 401's text is B.observe.unauthorized-text.
    text: 'Error texts start with a class token such as ERR or WRONGPASS; ERR for general failures such as wrong argument count or non-integer value.',
  },
  {
    id: 'B.outcome.by-form',
    section: errors,
    // Spec "Errors" read per request form (issue 35: outcomes as dimensions): the 200 row ("individual
    // command errors inside pipelines and transactions still arrive with 200 as per-item error objects"),
    // the 400 row, the 401 row, with "Endpoints" (/pipeline: "one failing command does not stop the rest";
    // /multi-exec: "A valid command that fails at run time does not discard the transaction", and a
    // syntax error or an unsupported command discards it as "single {error} object").
    text: 'Each outcome of a command comes back as its request form says: a command that runs answers 200 with {result} (an item on /pipeline and /multi-exec); a run-time failure, a syntax error or an unknown command answers 400 with {error} on a one-command form; inside /pipeline and /multi-exec a run-time failure is an {error} item in its place, status 200, the rest run; a syntax error or an unknown command discards a /multi-exec whole (one {error}) and is an {error} in a /pipeline (its item or the request’s: not shown which); a missing token answers 401 with {error} everywhere.',
  },

  // Pipelines
  {
    id: 'B.pipeline.order',
    section: endpoints,
    text: '/pipeline answers a JSON array with one result-or-error object per command, in request order.',
  },
  {
    id: 'B.pipeline.error-continues',
    section: endpoints,
    text: 'One failing command in a pipeline does not stop the rest; its error is an item, and the status stays 200.',
  },
  {
    id: 'B.pipeline.non-atomic',
    level: 'OBSERVE',
    section: endpoints,
    text: 'A pipeline is not atomic: other clients’ commands may interleave (permitted, not required).',
  },

  // Transactions
  {
    id: 'B.multi-exec.results',
    section: endpoints,
    text: '/multi-exec answers a JSON array of result-or-error objects in request order.',
  },
  {
    id: 'B.multi-exec.atomic',
    section: endpoints,
    text: 'A transaction is atomic: no other client observes or interleaves with a partial transaction.',
  },
  {
    id: 'B.multi-exec.runtime-error-in-place',
    section: endpoints,
    text: 'A valid command failing at run time does not discard the transaction: all commands run, the failure is at its position.',
  },
  {
    id: 'B.multi-exec.discard.syntax-error',
    section: endpoints,
    text: 'A syntax error in the request discards the whole transaction with a single error object.',
  },
  {
    id: 'B.multi-exec.discard.unsupported-command',
    section: endpoints,
    text: 'An unsupported command discards the whole transaction with a single error object.',
  },
  {
    id: 'B.multi-exec.discard.max-request-size',
    section: endpoints,
    text: 'A command exceeding the maximum request size discards the whole transaction.',
  },
  {
    id: 'B.multi-exec.discard.daily-limit',
    section: endpoints,
    text: 'A command exceeding the daily request limit discards the whole transaction.',
  },
  {
    id: 'B.multi-exec.json-only',
    section: endpoints,
    text: 'resp2 does not apply to /multi-exec, which answers in JSON only (rule 4).',
  },

  // Streams and pub/sub
  {
    id: 'B.monitor.first-ok',
    section: endpoints,
    text: '/monitor is a server-sent event stream whose first data item is OK.',
  },
  {
    id: 'B.monitor.command-events',
    section: events,
    // Spec: "one data item per command seen, as text: timestamp, client tag, quoted command and arguments":
    // the parts, not Redis's punctuation or an order of the items; a timestamp says when its command was seen.
    text: '/monitor sends one data item per command seen: timestamp, client tag, quoted command and arguments.',
  },
  {
    id: 'B.subscribe.subscribe-event',
    section: endpoints,
    text: '/subscribe/{channel} is a server-sent event stream starting with subscribe,<channel>,<count>.',
  },
  {
    id: 'B.subscribe.message-events',
    section: events,
    // The spec shows the items' form, not their order: order is recorded by the cases, never judged.
    text: 'Each message published to the channel arrives as message,<channel>,<message>, none lost.',
  },
  {
    id: 'B.publish.result',
    section: endpoints,
    // Spec: "POST /publish/{channel}/{message} | No body | JSON result": what the result counts is not shown.
    text: '/publish/{channel}/{message} publishes the message and answers a JSON result.',
  },
  {
    id: 'B.info.result',
    section: endpoints,
    // Spec: "POST /info | No body | JSON result", and a result "is null, an integer, a string, or an array
    // whose items are strings or null": any of them, not only Redis's INFO text.
    text: '/info answers a JSON result: null, an integer, a string, or an array of strings and nulls.',
  },

  // Headers
  {
    id: 'B.encoding.base64',
    section: endpoints,
    text: 'Svc-Encoding: base64 base64-encodes every string in the response.',
  },
  {
    id: 'B.encoding.base64-ok-plain',
    section: endpoints,
    text: 'Under Svc-Encoding: base64 the OK response stays OK.',
  },
  {
    id: 'B.utf8.replacement',
    section: endpoints,
    text: 'Invalid UTF-8 in a response string is replaced by U+FFFD unless base64 is requested (rule 1).',
  },
  { id: 'B.format.json', section: endpoints, text: 'Svc-Response-Format json (the default) answers application/json.' },
  {
    id: 'B.format.resp2',
    section: endpoints,
    text: 'Svc-Response-Format resp2 answers the raw RESP2 reply with content type application/octet-stream.',
  },
  {
    id: 'B.format.invalid-400',
    section: endpoints,
    text: 'Any Svc-Response-Format other than json or resp2 gives 400 (rule 2).',
  },
  {
    id: 'B.format.base64-with-resp2-400',
    section: endpoints,
    text: 'Svc-Encoding base64 together with Svc-Response-Format resp2 gives 400 (rule 3).',
  },

  // Command support (rule 5)
  {
    id: 'B.commands.supported-groups',
    section: endpoints,
    text: 'String, bitmap, hash, list, set, sorted set, geo, hyperloglog, generic, server, scripting, pub/sub and stream commands are supported.',
  },
  { id: 'B.commands.json-group', section: endpoints, text: 'The JSON command group is supported.' },
  {
    id: 'B.commands.blocking-list-refused',
    section: endpoints,
    text: 'BLPOP, BRPOP and BRPOPLPUSH are not supported.',
  },
  { id: 'B.commands.blocking-zset-refused', section: endpoints, text: 'BZPOPMAX and BZPOPMIN are not supported.' },
  {
    id: 'B.commands.blocking-stream-refused',
    section: endpoints,
    text: 'Blocking XREAD and XREADGROUP are not supported.',
  },
  {
    id: 'B.commands.connection-only-ping-echo',
    section: endpoints,
    text: 'Of the connection group only PING and ECHO are supported.',
  },
  {
    id: 'B.commands.time-units',
    section: endpoints,
    // Rule 5 supports the generic and string groups: a supported command keeps its protocol meaning, and
    // the protocol fixes each time's unit by the command's name (P for milliseconds).
    text: 'Times keep the units of the protocol: EXPIRE, SET … EX, EXPIREAT and TTL in seconds; PEXPIRE, SET … PX, PEXPIREAT and PTTL in milliseconds.',
  },
  { id: 'B.commands.cluster-refused', section: endpoints, text: 'Cluster commands are not supported.' },
  {
    id: 'B.commands.transaction-refused',
    section: endpoints,
    text: 'WATCH, UNWATCH and DISCARD are not supported in transactions.',
  },

  // Authentication
  { id: 'B.auth.bearer', section: auth, text: 'Authorization: Bearer <REST_TOKEN> authenticates.' },
  { id: 'B.auth.query-token', section: auth, text: 'The query parameter _token=<REST_TOKEN> authenticates.' },
  { id: 'B.auth.missing-401', section: auth, text: 'A missing token gives 401 with an error object.' },
  { id: 'B.auth.invalid-401', section: auth, text: 'An invalid token gives 401 with an error object.' },
  { id: 'B.auth.read-only.reads', section: auth, text: 'The Read Only token runs read commands.' },
  { id: 'B.auth.read-only.writes-refused', section: auth, text: 'The Read Only token is refused every write command.' },
  { id: 'B.auth.read-only.keys-scan-refused', section: auth, text: 'The Read Only token is refused SCAN and KEYS.' },
  { id: 'B.auth.password-reset-revokes', section: auth, text: 'Resetting the database password revokes both tokens.' },
  {
    id: 'B.acl-resttoken.token',
    section: endpoints,
    text: 'ACL RESTTOKEN <user> <password> returns a string token with that user’s permissions (rule 6).',
  },
  {
    id: 'B.acl-resttoken.errors',
    section: auth,
    text: 'ACL RESTTOKEN for an unknown user or a wrong password returns an error.',
  },

  // Limits
  {
    id: 'B.limits.max-request-size',
    section: limits,
    text: 'A command exceeding the maximum request size is refused with an error.',
  },
  {
    id: 'B.limits.daily-limit',
    section: limits,
    text: 'A command exceeding the daily request limit is refused with an error.',
  },

  // Where the spec is silent: observations only
  {
    id: 'B.observe.unauthorized-text',
    level: 'OBSERVE',
    section: errors,
    // The one position on the 401, held by every case: its body is the Error object ("Error bodies are
    // {error: <string>}", B.response.error-shape), its text is recorded, never judged. The 401 row says
    // only "Missing or invalid token"; the class-token sentence's examples are command failures ("WRONGPASS
    // for a bad password, ERR for general failures such as wrong argument count or non-integer value"),
    // and deployments of the real service answer `Unauthorized` (silent notes).
    text: 'The text of the 401 error: the body is an {error} object, its text is not shown (real deployments: WRONGPASS … or Unauthorized).',
  },
  {
    id: 'B.observe.publish-result',
    level: 'OBSERVE',
    section: endpoints,
    text: 'What the result of /publish holds (the number of receivers on the real service; not shown).',
  },
  {
    id: 'B.observe.info-result',
    level: 'OBSERVE',
    section: endpoints,
    text: 'What the result of /info holds (Redis INFO text on the real service; not shown).',
  },
  {
    id: 'B.observe.read-only-refusal',
    level: 'OBSERVE',
    section: auth,
    text: 'Status and text of a Read Only token refusal (not shown).',
  },
  {
    id: 'B.observe.pipeline-resp2',
    level: 'OBSERVE',
    section: endpoints,
    text: 'What resp2 does on /pipeline (not shown).',
  },
  {
    id: 'B.observe.discard-status',
    level: 'OBSERVE',
    section: endpoints,
    text: 'The status of a discarded transaction (not shown).',
  },
  {
    id: 'B.observe.nested-json',
    level: 'OBSERVE',
    section: responses,
    text: 'The JSON form of nested and mixed replies (XRANGE, EVAL), beyond arrays of strings and null (not shown).',
  },
  {
    id: 'B.observe.error-class',
    level: 'OBSERVE',
    section: responses,
    text: 'Which words count as error class tokens beyond the Redis error classes (ERR, WRONGTYPE, NOPERM, …) (not shown).',
  },
  {
    id: 'B.observe.limit-values',
    level: 'OBSERVE',
    section: limits,
    text: 'The maximum request size and daily request limit values (not shown).',
  },
];

export const kvRuleCatalog: readonly Rule[] = kvRules.map((rule) => ({ area: 'kv', level: 'MUST', ...rule }));
