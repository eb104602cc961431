/**
 * Area B's silence switches: each makes the reference take another legal choice where the spec says
 * "not shown" or leaves a reading open (shared/notes/where-the-spec-is-silent.md lists the reference's
 * own). With any of them on, no case of the suites may fail.
 */
import { defineSilences } from '../fault-registry.ts';

export const kvSilences = defineSilences([
  {
    name: 'unauthorized-text-plain',
    area: 'kv',
    silence: 'B.observe.unauthorized-text',
    description: 'a 401 answers {"error":"Unauthorized"}, as older deployments did (the 401 text is not shown)',
  },
  {
    name: 'unknown-command-redis-text',
    area: 'kv',
    silence: 'notes: B.error-texts',
    description:
      "an unknown or unsupported command answers Redis's own text, ERR unknown command '<name>' (texts after the class token are not shown)",
  },
  {
    name: 'discard-status-422',
    area: 'kv',
    silence: 'B.observe.discard-status',
    description: 'a discarded transaction answers 422 rather than 400 (its status is not shown)',
  },
  {
    name: 'pipeline-resp2-array',
    area: 'kv',
    silence: 'B.observe.pipeline-resp2',
    description:
      'resp2 on /pipeline answers one RESP2 array of the replies (*N then each), not the replies concatenated',
  },
  {
    name: 'sync-token-header',
    area: 'kv',
    silence: 'notes: B.sync-token',
    description: 'every answer carries a read-your-writes sync token header (an extra header; optional per the notes)',
  },
  {
    name: 'content-type-parameters',
    area: 'kv',
    silence: 'notes: B.content-type',
    description:
      'JSON answers are labelled Application/JSON; charset=UTF-8 and event streams text/event-stream; charset=utf-8 (the notes show the bare types)',
  },
  {
    name: 'monitor-own-line',
    area: 'kv',
    silence: 'notes: B.monitor-line',
    description:
      'a /monitor item has its own line: the client tag client=10.0.0.7:51234 and JSON-quoted arguments (the spec shows the parts, not their punctuation)',
  },
  {
    name: 'publish-result-zero',
    area: 'kv',
    silence: 'B.observe.publish-result',
    description:
      '/publish answers {"result":0} whoever listens (its result is a JSON result; what it counts is not shown)',
  },
  {
    name: 'info-result-lines',
    area: 'kv',
    silence: 'B.observe.info-result',
    description: '/info answers its text as an array of lines (a legal result: an array of strings)',
  },
  {
    name: 'read-only-refusal-403',
    area: 'kv',
    silence: 'B.observe.read-only-refusal',
    description:
      'a Read Only token refusal answers 403 with NOPERM read-only token (its status and text are not shown)',
  },
  {
    name: 'post-root-strings-only',
    area: 'kv',
    silence: 'notes: B.post-root-numbers',
    description:
      'POST /, /pipeline and /multi-exec refuse JSON numbers and booleans as arguments (400): the spec shows the command name and arguments, not numbers',
  },
  {
    name: 'utf8-replacement-per-byte',
    area: 'kv',
    silence: 'notes: B.utf8-replacement-granularity',
    description:
      'invalid UTF-8 becomes one U+FFFD per invalid byte, not one per invalid sequence (the spec says only "replaced by U+FFFD")',
  },
  {
    name: 'nested-integers-as-strings',
    area: 'kv',
    silence: 'B.observe.nested-json',
    description:
      'an integer inside an array reply (EVAL {1, …}, EXEC-like mixed replies) is written as its decimal string: results hold arrays of strings',
  },
  {
    name: 'max-request-size-1mib',
    area: 'kv',
    silence: 'notes: B.max-request-size',
    description: 'a maximum request size of 1 MiB (its value is not shown; the real service: 10 MB)',
  },
  {
    name: 'daily-limit-million',
    area: 'kv',
    silence: 'B.observe.limit-values',
    description: 'a daily limit of 1,000,000 commands where the reference has none (its value is not shown)',
  },
  {
    name: 'path-command-lower-case',
    area: 'kv',
    silence: 'notes: B.command-name-case',
    description:
      'a command name in a path is taken in lower case only (GET /ECHO/x: 400 ERR unknown command); the spec shows the name as a path segment, not that its case is free',
  },
  {
    name: 'limit-errors-own-class',
    area: 'kv',
    silence: 'B.observe.error-class',
    description:
      'the limits are refused with a class token of the service’s own: LIMIT max request size exceeded, LIMIT max daily request limit exceeded',
  },
  {
    name: 'pipeline-one-at-a-time',
    area: 'kv',
    silence: 'B.pipeline.non-atomic',
    description:
      "a pipeline's commands are sent one after another, each once the one before was answered, so other clients' commands interleave",
  },
  {
    name: 'no-psubscribe',
    area: 'kv',
    silence: 'notes: B.subscribe-extras',
    description:
      "there is no /psubscribe/<pattern> (400, ERR Command is not available: 'PSUBSCRIBE'): the SDK's extra is not in the spec",
  },
]);

export type KvSilenceName = (typeof kvSilences)[number]['name'];

export type KvSilenceCheck = (name: KvSilenceName) => boolean;

/** Silence read-only-refusal-403's text, which kv-answer.ts answers with 403. */
export const readOnlyRefusal403 = 'NOPERM read-only token: this command writes';

/** No switch on: the reference's own choices (the notes'). */
export const noSilence: KvSilenceCheck = () => false;
