/**
 * Area B fault switches. Each breaks exactly one rule of conformance/rules/kv-rules.ts, so the
 * key-value suite can prove it catches that rule; only `--fault NAME` turns one on.
 */
import { defineFaults } from '../fault-registry.ts';

export const kvFaults = defineFaults([
  // Methods and request forms
  {
    name: 'accept-delete',
    area: 'kv',
    rule: 'B.methods.other-405',
    description: 'Runs DELETE requests as commands instead of answering 405.',
  },
  {
    name: 'head-refused',
    area: 'kv',
    rule: 'B.methods.allowed',
    description: 'Answers HEAD requests with 405.',
  },
  {
    name: 'path-args-reversed',
    area: 'kv',
    rule: 'B.path.command-args',
    description: 'Takes the path arguments after the command in reverse order.',
  },
  {
    name: 'no-percent-decoding',
    area: 'kv',
    rule: 'B.path.percent-decoding',
    description: 'Passes path segments on without percent-decoding them.',
  },
  {
    name: 'body-not-last-arg',
    area: 'kv',
    rule: 'B.post.body-last-arg',
    description: 'Puts the POST body first, right after the command name, instead of last.',
  },
  {
    name: 'query-args-ignored',
    area: 'kv',
    rule: 'B.post.query-args',
    description: 'Drops the NAME=value query pairs instead of appending them as arguments.',
  },
  {
    name: 'root-drops-last-arg',
    area: 'kv',
    rule: 'B.root.json-array',
    description: 'POST / drops the last element of the JSON array.',
  },

  // Response bodies, statuses and error texts
  {
    name: 'result-wrapped-wrong',
    area: 'kv',
    rule: 'B.response.result-shape',
    description: 'Answers {"data": …} instead of {"result": …}.',
  },
  {
    name: 'error-without-class-token',
    area: 'kv',
    rule: 'B.errors.class-token',
    description: 'Strips the class token (ERR, WRONGTYPE, …) from error texts.',
  },
  {
    name: 'success-status-201',
    area: 'kv',
    rule: 'B.status.ok-200',
    description: 'Answers successful commands with status 201.',
  },
  {
    name: 'error-shape-extra-field',
    area: 'kv',
    rule: 'B.response.error-shape',
    description: 'Adds a status field next to error in {error} bodies.',
  },
  {
    name: 'syntax-error-200',
    area: 'kv',
    rule: 'B.status.syntax-400',
    description: 'Answers a wrong argument count with status 200.',
  },
  {
    name: 'unsupported-status-500',
    area: 'kv',
    rule: 'B.status.unsupported-400',
    description: 'Answers unknown and unsupported commands with status 500.',
  },
  {
    name: 'exec-failure-200',
    area: 'kv',
    rule: 'B.status.exec-failure-400',
    description: 'Answers a command that fails at run time with status 200.',
  },

  // Pipelines and transactions
  {
    name: 'pipeline-stops-at-error',
    area: 'kv',
    rule: 'B.pipeline.error-continues',
    description: 'Stops a pipeline at its first failing command; later commands are not run.',
  },
  {
    name: 'pipeline-reversed-order',
    area: 'kv',
    rule: 'B.pipeline.order',
    description: 'Answers the pipeline results in reverse order.',
  },
  {
    name: 'transaction-not-atomic',
    area: 'kv',
    rule: 'B.multi-exec.atomic',
    description: 'Runs /multi-exec commands one by one without MULTI/EXEC, pausing between them.',
  },
  {
    name: 'exec-write-behind',
    area: 'kv',
    rule: 'B.multi-exec.results',
    description:
      'Answers a /multi-exec of INCRs from counters cached in memory, writing the increments to Redis up to a second later (serve --fault-record FILE keeps each increment acknowledged and persisted): a kill loses what it held.',
    judgedBy: 'soak',
  },
  {
    name: 'transaction-discards-on-runtime-error',
    area: 'kv',
    rule: 'B.multi-exec.runtime-error-in-place',
    description: 'Answers a single error when a command of a transaction fails at run time.',
  },
  {
    name: 'transaction-runs-syntax-errors',
    area: 'kv',
    rule: 'B.multi-exec.discard.syntax-error',
    description:
      'Runs the rest of a transaction whose command has a syntax error (wrong argument count), the error in place.',
  },
  {
    name: 'transaction-ignores-unsupported',
    area: 'kv',
    rule: 'B.multi-exec.discard.unsupported-command',
    description: 'Runs the rest of a transaction holding an unsupported command, which answers an in-place error.',
  },
  {
    name: 'transaction-size-limit-in-place',
    area: 'kv',
    rule: 'B.multi-exec.discard.max-request-size',
    description: 'Runs the rest of a transaction holding an oversize command, which answers an in-place error.',
  },
  {
    name: 'transaction-daily-limit-in-place',
    area: 'kv',
    rule: 'B.multi-exec.discard.daily-limit',
    description: 'Runs the commands of a transaction that fit the daily limit; the others answer in-place errors.',
  },
  {
    name: 'resp2-on-multi-exec',
    area: 'kv',
    rule: 'B.multi-exec.json-only',
    description: 'Answers /multi-exec in RESP2 when asked.',
  },
  {
    name: 'transaction-allows-watch',
    area: 'kv',
    rule: 'B.commands.transaction-refused',
    description: 'Accepts WATCH, UNWATCH and DISCARD in transactions (answered OK in place).',
  },

  // Streams and pub/sub
  {
    name: 'monitor-drops-ok',
    area: 'kv',
    rule: 'B.monitor.first-ok',
    description: 'Starts /monitor without the first OK item.',
  },
  {
    name: 'monitor-unquoted',
    area: 'kv',
    rule: 'B.monitor.command-events',
    description: 'Sends /monitor items without the quotes around the command and its arguments.',
  },
  {
    name: 'subscribe-wrong-count',
    area: 'kv',
    rule: 'B.subscribe.subscribe-event',
    description: 'Sends subscribe,<channel>,0 instead of the subscription count.',
  },
  {
    name: 'message-comma-truncation',
    area: 'kv',
    rule: 'B.subscribe.message-events',
    description: 'Cuts each message at its first comma.',
  },
  {
    name: 'publish-result-object',
    area: 'kv',
    rule: 'B.publish.result',
    description: '/publish answers {"result":{"receivers":<n>}}: an object, which no JSON result of area B is.',
  },
  {
    name: 'info-plain-text',
    area: 'kv',
    rule: 'B.info.result',
    description: '/info answers plain text instead of a JSON result.',
  },

  // Headers
  { name: 'no-base64', area: 'kv', rule: 'B.encoding.base64', description: 'Ignores Svc-Encoding: base64.' },
  {
    name: 'base64-encodes-ok',
    area: 'kv',
    rule: 'B.encoding.base64-ok-plain',
    description: 'Base64-encodes the OK response too.',
  },
  {
    name: 'no-utf8-replacement',
    area: 'kv',
    rule: 'B.utf8.replacement',
    description: 'Decodes reply strings as Latin-1 instead of replacing invalid UTF-8 with U+FFFD.',
  },
  { name: 'json-as-text-plain', area: 'kv', rule: 'B.format.json', description: 'Labels JSON answers text/plain.' },
  {
    name: 'ignore-response-format',
    area: 'kv',
    rule: 'B.format.resp2',
    description: 'Ignores Svc-Response-Format: resp2 and answers JSON.',
  },
  {
    name: 'resp2-labelled-json',
    area: 'kv',
    rule: 'B.format.resp2',
    description: 'Labels resp2 answers application/json (the body stays raw RESP2).',
  },
  {
    name: 'accept-invalid-format',
    area: 'kv',
    rule: 'B.format.invalid-400',
    description: 'Treats an unknown Svc-Response-Format value as json instead of answering 400.',
  },
  {
    name: 'allow-base64-with-resp2',
    area: 'kv',
    rule: 'B.format.base64-with-resp2-400',
    description: 'Accepts Svc-Encoding base64 with Svc-Response-Format resp2 (answers RESP2).',
  },

  // Command support
  {
    name: 'stream-commands-refused',
    area: 'kv',
    rule: 'B.commands.supported-groups',
    description: 'Refuses the stream commands (XADD, XRANGE, …).',
  },
  {
    name: 'json-commands-refused',
    area: 'kv',
    rule: 'B.commands.json-group',
    description: 'Refuses the JSON commands.',
  },
  {
    name: 'blpop-allowed',
    area: 'kv',
    rule: 'B.commands.blocking-list-refused',
    description: 'Runs the blocking list commands (BLPOP, BRPOP, …).',
  },
  {
    name: 'bzpop-allowed',
    area: 'kv',
    rule: 'B.commands.blocking-zset-refused',
    description: 'Runs the blocking sorted-set commands (BZPOPMIN, BZPOPMAX, BZMPOP).',
  },
  {
    name: 'xread-block-allowed',
    area: 'kv',
    rule: 'B.commands.blocking-stream-refused',
    description: 'Runs XREAD and XREADGROUP with BLOCK.',
  },
  {
    name: 'connection-commands-allowed',
    area: 'kv',
    rule: 'B.commands.connection-only-ping-echo',
    description: 'Runs CLIENT, SELECT and AUTH.',
  },

  // Authentication
  {
    name: 'bearer-ignored',
    area: 'kv',
    rule: 'B.auth.bearer',
    description: 'Ignores the Authorization header; only _token authenticates.',
  },
  {
    name: 'query-token-ignored',
    area: 'kv',
    rule: 'B.auth.query-token',
    description: 'Ignores the _token query parameter; only the Bearer header authenticates.',
  },
  {
    name: 'missing-token-allowed',
    area: 'kv',
    rule: 'B.auth.missing-401',
    description: 'Runs requests without a token with the Standard token’s rights.',
  },
  {
    name: 'any-token-allowed',
    area: 'kv',
    rule: 'B.auth.invalid-401',
    description: 'Runs requests with an unknown token with the Standard token’s rights.',
  },
  {
    name: 'readonly-refuses-reads',
    area: 'kv',
    rule: 'B.auth.read-only.reads',
    description: 'The Read Only token is refused every command but PING and ECHO.',
  },
  {
    name: 'readonly-runs-writes',
    area: 'kv',
    rule: 'B.auth.read-only.writes-refused',
    description: 'The Read Only token runs write commands.',
  },
  {
    name: 'readonly-scripts-allowed',
    area: 'kv',
    rule: 'B.auth.read-only.keys-scan-refused',
    description: 'The Read Only token runs EVAL_RO, EVALSHA_RO and FCALL_RO, whose scripts may call KEYS and SCAN.',
  },
  {
    name: 'readonly-runs-keys',
    area: 'kv',
    rule: 'B.auth.read-only.keys-scan-refused',
    description: 'The Read Only token runs KEYS and SCAN.',
  },
  {
    name: 'reset-keeps-tokens',
    area: 'kv',
    rule: 'B.auth.password-reset-revokes',
    description: 'The password reset issues new tokens but the old ones keep working.',
  },
  {
    name: 'resttoken-full-permissions',
    area: 'kv',
    rule: 'B.acl-resttoken.token',
    description: 'ACL RESTTOKEN tokens run with the Standard token’s rights, not the ACL user’s.',
  },
  {
    name: 'resttoken-ignores-password',
    area: 'kv',
    rule: 'B.acl-resttoken.errors',
    description: 'ACL RESTTOKEN returns a token for an unknown user or a wrong password.',
  },

  // Limits
  {
    name: 'size-limit-ignored',
    area: 'kv',
    rule: 'B.limits.max-request-size',
    description: 'Runs commands larger than the maximum request size.',
  },
  {
    name: 'daily-limit-ignored',
    area: 'kv',
    rule: 'B.limits.daily-limit',
    description: 'Runs commands past the daily request limit.',
  },
  // Kinds of bug the first, flat examples of each rule do not reach (issue 9: coverage holes)
  {
    name: 'hgetall-empty-body',
    area: 'kv',
    rule: 'B.response.result-shape',
    description: 'Answers HGETALL (a map-like reply) with 200 and an empty body.',
  },
  {
    name: 'base64-top-level-only',
    area: 'kv',
    rule: 'B.encoding.base64',
    description: 'Base64-encodes the strings of the top level only, not those inside nested arrays.',
  },
  {
    name: 'resp2-flattens-nested',
    area: 'kv',
    rule: 'B.format.resp2',
    description: 'Writes nested arrays in resp2 as one flat array of their leaves.',
  },
  {
    name: 'raw-invalid-utf8-in-items',
    area: 'kv',
    rule: 'B.utf8.replacement',
    description:
      'Writes the strings of /pipeline and /multi-exec items as their raw bytes: invalid UTF-8 goes into the JSON answer as it is.',
  },
  {
    name: 'utf8-replacement-top-level-only',
    area: 'kv',
    rule: 'B.utf8.replacement',
    description: 'Replaces invalid UTF-8 with U+FFFD at the top level only; nested strings are read as Latin-1.',
  },
  {
    name: 'big-integers-rounded',
    area: 'kv',
    rule: 'B.response.result-shape',
    description: 'Answers integers beyond 2^53 as rounded JSON numbers instead of their exact digits.',
  },
  {
    name: 'pipeline-long-reordered',
    area: 'kv',
    rule: 'B.pipeline.order',
    description: 'Answers the items of pipelines longer than 100 commands past the 100th in reverse order.',
  },
  {
    name: 'readonly-writes-in-batches',
    area: 'kv',
    rule: 'B.auth.read-only.writes-refused',
    description: 'The Read Only token runs write commands inside /pipeline and /multi-exec.',
  },
  {
    name: 'unknown-methods-accepted',
    area: 'kv',
    rule: 'B.methods.other-405',
    description: 'Runs requests with WebDAV methods (PROPFIND, LOCK, SEARCH) as commands instead of answering 405.',
  },
  // Kinds of bug found by the dimensions of each rule (issue 20: coverage by construction)
  {
    name: 'base64-skips-ok-values',
    area: 'kv',
    rule: 'B.encoding.base64',
    description: 'Under base64 leaves every string equal to "OK" plain, values included, not only the OK reply.',
  },
  {
    name: 'base64-items-plain',
    area: 'kv',
    rule: 'B.encoding.base64',
    description: 'Ignores Svc-Encoding: base64 for the items of /pipeline and /multi-exec.',
  },
  {
    name: 'digit-values-as-integers',
    area: 'kv',
    rule: 'B.response.result-shape',
    description: 'Answers a string value made of digits ("123") as a JSON integer.',
  },
  {
    name: 'resp2-ok-values-simple',
    area: 'kv',
    rule: 'B.format.resp2',
    description: 'Writes string values equal to OK or PONG in resp2 as simple strings (+OK) instead of bulk strings.',
  },
  {
    name: 'plus-as-space-in-path',
    area: 'kv',
    rule: 'B.path.percent-decoding',
    description: 'Decodes a raw "+" in a path segment as a space, as form encoding does for a query.',
  },
  {
    name: 'double-percent-decoding',
    area: 'kv',
    rule: 'B.path.percent-decoding',
    description: 'Percent-decodes each path segment twice, so %2541 becomes A.',
  },
  {
    name: 'body-trailing-newline-trimmed',
    area: 'kv',
    rule: 'B.post.body-last-arg',
    description: 'Trims trailing CR, LF and spaces from the POST body before appending it.',
  },
  {
    name: 'monitor-no-auth',
    area: 'kv',
    rule: 'B.auth.missing-401',
    description: 'Opens /monitor for a request without a token.',
  },
  {
    name: 'subscribe-any-token',
    area: 'kv',
    rule: 'B.auth.invalid-401',
    description: 'Opens /subscribe/{channel} for any token, checking only that one is there.',
  },
  {
    name: 'query-token-unchecked',
    area: 'kv',
    rule: 'B.auth.invalid-401',
    description: 'Takes any _token query parameter as the Standard token without checking it.',
  },
  {
    name: 'readonly-publish-allowed',
    area: 'kv',
    rule: 'B.auth.read-only.writes-refused',
    description: 'Lets the Read Only token PUBLISH.',
  },
  {
    name: 'subscribe-prefix-match',
    area: 'kv',
    rule: 'B.subscribe.message-events',
    description: 'A subscriber of a channel also gets what is published to every channel its name begins (a gets ab).',
  },
  {
    name: 'subscribe-as-pattern',
    area: 'kv',
    rule: 'B.subscribe.message-events',
    description: 'Subscribes to the channel name as a glob pattern, so a subscriber of a* gets ab.',
  },
  {
    name: 'monitor-misses-transactions',
    area: 'kv',
    rule: 'B.monitor.command-events',
    description: 'Leaves the commands of /multi-exec transactions out of /monitor.',
  },
  {
    name: 'monitor-unescaped-quotes',
    area: 'kv',
    rule: 'B.monitor.command-events',
    description: 'Writes the quotes inside arguments of /monitor items without their backslash.',
  },
  // Found by the wire-mutation engine (issue 20): answers the suite once did not judge.
  {
    name: 'error-labelled-text-plain',
    area: 'kv',
    rule: 'B.format.json',
    description: 'Labels {error} answers text/plain (successes stay application/json).',
  },
  {
    name: 'head-labelled-octet-stream',
    area: 'kv',
    rule: 'B.format.json',
    description: 'Labels the answers of HEAD requests application/octet-stream.',
  },
  {
    name: 'put-path-labelled-text-plain',
    area: 'kv',
    rule: 'B.format.json',
    description: 'Labels the JSON answers of PUT on the path form text/plain.',
  },
  {
    // A 401's text is not judged (B.observe.unauthorized-text: {"error":"Unauthorized"} is legal), its
    // Error object is.
    name: 'stream-401-not-error-object',
    area: 'kv',
    rule: 'B.response.error-shape',
    description: 'Answers a refused /monitor or /subscribe with {"message": "Unauthorized"}, not the Error object.',
  },
  {
    name: 'method-405-plain-text',
    area: 'kv',
    rule: 'B.response.error-shape',
    description: 'Answers 405 with the text/plain body "Method Not Allowed" instead of an {error} object.',
  },
  {
    name: 'monitor-events-swapped',
    area: 'kv',
    rule: 'B.monitor.command-events',
    description:
      'Sends the command items of /monitor in pairs, each pair in reverse order with the timestamps exchanged: the later command claims to have been seen first.',
  },

  // Outcomes per request form (issue 35, item 5: cells of B.outcome.by-form) and units.
  {
    name: 'pipeline-error-whole-400',
    area: 'kv',
    rule: 'B.outcome.by-form',
    description:
      'Answers a pipeline in which a command fails at run time (WRONGTYPE) with that error as the whole request’s 400, not as its item.',
  },
  {
    name: 'head-failure-200',
    area: 'kv',
    rule: 'B.outcome.by-form',
    description:
      'Answers a HEAD request whose command failed with 200: a HEAD answer has no body, so its status is all it says.',
  },
  {
    name: 'pttl-in-seconds',
    area: 'kv',
    rule: 'B.commands.time-units',
    description: 'Answers PTTL in seconds, as TTL does, where the protocol counts milliseconds.',
  },
] as const);

export type KvFaultName = (typeof kvFaults)[number]['name'];
