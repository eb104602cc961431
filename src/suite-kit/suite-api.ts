/**
 * The suites' door (issue 20): everything a conformance suite (`conformance/**`) takes from `src/`
 * comes through this one module, as load scenarios take theirs from `src/protocol/`: the case API
 * (defineCases, the case context, checks' failures, the closers run when the suites end), the HTTP and
 * SSE client, the protocol's request forms, the target model, the sink and its start-up from a target,
 * and the rule model. biome holds `conformance/**` to it, so what the suites may reach is listed here
 * and nowhere else; and it holds this folder to nothing of `src/engines/`, so the engine, which finds
 * the suites by reading their folders, is never imported back by them (issue 37).
 */

export { unjudged } from '../http/exchange-log.ts';
export {
  answerCapBytes,
  dispatcherFor,
  type HttpResponse,
  headerValue,
  httpRequest,
  jsonBody,
  requestTimeoutMs,
} from '../http/http-client.ts';
export { openSse, type SseStream } from '../http/sse-client.ts';
export type { HttpMethod } from '../protocol/http-method.ts';
export { fromBase64, toBase64 } from '../protocol/kv/base64.ts';
export { type CommandInfo, parseCommandReply } from '../protocol/kv/command-reply.ts';
export {
  type Arg,
  commandPath,
  encodeSegment,
  type JsonArg,
  type KvRequestShape,
  kvVendorHeaders,
  multiExecRequest,
  pathRequest,
  pipelineRequest,
  postBodyRequest,
  publishPath,
  type QueryPairs,
  queryString,
  rootRequest,
  subscribePath,
} from '../protocol/kv/request-forms.ts';
export {
  messagingAccountFields,
  type SpecField,
  searchIndexFields,
  secretFieldNames,
} from '../protocol/management/resource-fields.ts';
export { answerRoom } from '../protocol/scenario.ts';
export type { CellCover, CellRegion, Dimension, Rule, RuleDimensions, SilentPlace } from '../results/rule.ts';
export { harnessError } from '../shared/errors.ts';
export { excerpt } from '../shared/excerpt.ts';
export {
  type Inbox,
  type Sink,
  type SinkAnswer,
  type SinkRequest,
  SinkTimeout,
  startSink,
} from '../sink/sink-server.ts';
export { vendorHeader } from '../target/dialects.ts';
export { messagingRegions } from '../target/messaging-regions.ts';
export { signatureSchemeOf, type Target } from '../target/target.ts';
export { startTargetSink } from '../target-sink/start-target-sink.ts';
export { Blocked, CaseSkipped, CheckFailure, isCheckFailure, judgingAs, means, show } from './check-failure.ts';
export { type CaseContext, type ConformanceCase, defineCases } from './conformance-case.ts';
export { onSuitesEnd } from './suite-end.ts';
