/**
 * The fastify plugin of area B (spec "Endpoints > Area B, key-value REST"): routes every request
 * form to the engine and renders its answer. Registered by reference-service.ts on its own server.
 */
import { ErrorReply } from '@redis/client';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { oneLine } from '../../shared/errors.ts';
import { type Dialect, getDialect, vendorHeader } from '../../target/dialects.ts';
import type { Answer, KvAnswers } from './kv-answer.ts';
import { authenticate, unauthorizedError } from './kv-auth.ts';
import type { KvEngine } from './kv-engine.ts';
import type { KvFaultCheck } from './kv-fault-check.ts';
import { responseOptions } from './kv-headers.ts';
import { maxRequestSizeError } from './kv-limits.ts';
import { unavailable } from './kv-outcome.ts';
import { type KvSilenceCheck, noSilence } from './kv-silences.ts';
import type { KvStreams, StreamKind } from './kv-streams.ts';
import type { KvTokens, Principal } from './kv-tokens.ts';
import { UserRejectedError } from './redis-connections.ts';
import {
  commandArgs,
  jsonCommand,
  jsonCommandList,
  parseJsonBody,
  percentDecode,
  type RawUrl,
  RequestFormError,
  splitRawUrl,
} from './request-args.ts';

export interface KvPluginOptions {
  readonly engine: KvEngine;
  readonly answers: KvAnswers;
  readonly tokens: KvTokens;
  readonly streams: KvStreams;
  readonly fault: KvFaultCheck;
  /** Another legal choice where the spec is silent. @default none */
  readonly silence?: KvSilenceCheck;
  /** The vendor header names the service answers to. @default the spec's (`Svc-`) */
  readonly dialect?: Dialect;
}

export async function kvPlugin(app: FastifyInstance, options: KvPluginOptions): Promise<void> {
  const { engine, answers, tokens, streams, fault } = options;
  const dialect = options.dialect ?? getDialect('svc');
  const encodingHeader = vendorHeader(dialect, 'Encoding').toLowerCase();
  const formatHeader = vendorHeader(dialect, 'Response-Format').toLowerCase();
  const silence = options.silence ?? noSilence;
  if (silence('sync-token-header')) {
    // Silence sync-token-header: the real service's read-your-writes token on every answer (notes:
    // optional), a header the spec does not show; counted per answer so it changes as writes do.
    let sync = 0;
    const syncHeader = vendorHeader(dialect, 'Sync-Token').toLowerCase();
    app.addHook('onSend', async (_request, reply) => {
      reply.header(syncHeader, String(++sync));
    });
  }
  const send = (reply: FastifyReply, answer: Answer) =>
    reply.code(answer.status).header('content-type', labelOf(reply, answer)).send(answer.body);
  // Faults head-labelled-octet-stream and put-path-labelled-text-plain: a right answer, a wrong label.
  const labelOf = (reply: FastifyReply, answer: Answer): string => {
    const { method } = reply.request;
    const url = rawUrlOf(reply.request);
    if (method === 'HEAD' && fault('head-labelled-octet-stream')) return 'application/octet-stream';
    const pathForm = url !== '/' && !url.startsWith('/?');
    if (method === 'PUT' && pathForm && answer.status === 200 && fault('put-path-labelled-text-plain'))
      return 'text/plain; charset=utf-8';
    return answer.contentType;
  };

  // Every body is raw bytes: a command path's body is an argument, and JSON bodies are parsed here.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  // Spec "Errors": 405 for any method other than HEAD, GET, POST, PUT (every allowed one is routed).
  app.setNotFoundHandler((_request, reply) => {
    if (fault('method-405-plain-text'))
      return reply.code(405).header('content-type', 'text/plain; charset=utf-8').send('Method Not Allowed');
    return send(reply, answers.error(405, 'ERR method not allowed'));
  });
  app.setErrorHandler((error: { code?: string; statusCode?: number; message: string }, _request, reply) => {
    // Spec "Limits": an oversize request is answered with the limit's error (status 400, spec "Errors").
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return send(reply, answers.error(400, maxRequestSizeError));
    const status = error.statusCode !== undefined && error.statusCode < 500 ? 400 : 500;
    return send(reply, answers.error(status, `ERR ${error.message}`));
  });

  // Spec "Endpoints > Area B": HEAD, GET, POST and PUT are allowed.
  const methods = [
    'GET',
    'POST',
    'PUT',
    ...(fault('head-refused') ? [] : ['HEAD']),
    ...(fault('accept-delete') ? ['DELETE'] : []),
    ...(fault('unknown-methods-accepted') ? webDavMethods : []),
  ];
  // fastify routes the standard methods only until told of others.
  if (fault('unknown-methods-accepted'))
    for (const method of webDavMethods) app.addHttpMethod(method, { hasBody: true });
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    try {
      await handle(request, reply);
    } catch (error) {
      if (reply.sent) return;
      // Spec "Authentication": an ACL token whose user Redis no longer accepts is an invalid token (401).
      if (error instanceof UserRejectedError) return void send(reply, answers.error(401, unauthorizedError));
      if (!(error instanceof RequestFormError)) throw error;
      // Spec "Errors": a syntax error in the request answers 400.
      send(reply, answers.error(400, error.message));
    }
  };
  app.route({ method: methods, url: '/', handler });

  async function handle(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const url = splitRawUrl(rawUrlOf(request));
    const principal =
      authenticate(request.headers.authorization, url.token, tokens, fault) ?? streamLeniency(request, url, fault);
    // Spec "Authentication": a missing or invalid token gives 401.
    if (!principal) {
      const stream = request.method === 'HEAD' ? undefined : streamOf(first401(url), url.segments.length);
      if (stream && fault('stream-401-not-error-object')) {
        const body = JSON.stringify({ message: 'Unauthorized' });
        return void reply.code(401).header('content-type', 'application/json').send(body);
      }
      return void send(reply, answers.error(401, unauthorizedError));
    }
    const headers = responseOptions(request.headers[encodingHeader], request.headers[formatHeader], fault);
    if (!headers.ok) return void send(reply, answers.error(400, headers.error));
    const format = headers.options;
    const body = Buffer.isBuffer(request.body) ? request.body : undefined;
    const first = url.segments[0] === undefined ? '' : percentDecode(url.segments[0]).toString('utf8').toLowerCase();
    const isWrite = request.method === 'POST' || request.method === 'PUT';

    if (first === '') {
      // Spec "Endpoints > Area B": POST / takes a JSON array, command name first.
      if (!isWrite) return void send(reply, answers.error(400, 'ERR empty command: use /{command}/{args} or POST /'));
      const args = jsonCommand(parseJsonBody(body), 'the request body', silence('post-root-strings-only'));
      if (fault('root-drops-last-arg') && args.length > 1) args.pop();
      const outcome = await engine.runOne(args, principal);
      if (fault('hgetall-empty-body') && isHgetall(args)) return void reply.code(200).send('');
      return void send(reply, answers.single(outcome, format));
    }
    if (isWrite && url.segments.length === 1 && first === 'pipeline') {
      const commands = jsonCommandList(body, silence('post-root-strings-only'));
      const outcomes = await engine.runPipeline(commands, principal);
      // Fault pipeline-error-whole-400: a run-time failure answered as the request's, not as its item.
      const failed = outcomes.find((item) => item.kind === 'error' && item.errorKind === 'execution');
      if (fault('pipeline-error-whole-400') && failed?.kind === 'error')
        return void send(reply, answers.error(400, failed.error));
      return void send(reply, answers.list(outcomes, format));
    }
    if (isWrite && url.segments.length === 1 && first === 'multi-exec') {
      const commands = jsonCommandList(body, silence('post-root-strings-only'));
      const outcome = await engine.runTransaction(commands, principal);
      // Spec "Endpoints > Area B": a discarded transaction is one {error}; 400 (status not shown, notes).
      if (outcome.kind === 'discarded') {
        // Silence discard-status-422: another 4xx for a discarded transaction (its status is not shown).
        const status = outcome.errorKind === 'unavailable' ? 500 : silence('discard-status-422') ? 422 : 400;
        return void send(reply, answers.error(status, outcome.error));
      }
      // Spec rule 4: /multi-exec answers in JSON only.
      const txFormat = fault('resp2-on-multi-exec') ? format : { ...format, format: 'json' as const };
      return void send(reply, answers.list(outcome.results, txFormat));
    }
    // A HEAD answer has no body, so it cannot carry an event stream: it is a plain command request.
    const stream = request.method === 'HEAD' ? undefined : streamOf(first, url.segments.length);
    // Silence no-psubscribe: the SDK's /psubscribe is no route of the spec's; refused as a command.
    if (stream === 'psubscribe' && silence('no-psubscribe'))
      return void send(reply, answers.error(400, "ERR Command is not available: 'PSUBSCRIBE'"));
    if (stream) return openStream(stream, url.segments[1], principal, reply);

    // Silence path-command-lower-case: the path's command name in lower case only.
    const named = percentDecode(url.segments[0] ?? '').toString('utf8');
    if (silence('path-command-lower-case') && named !== named.toLowerCase())
      return void send(reply, answers.error(400, `ERR unknown command '${named}'`));
    const args = commandArgs(url, isWrite ? body : undefined, {
      percentDecoding: !fault('no-percent-decoding'),
      bodyLast: !fault('body-not-last-arg'),
      queryArgs: !fault('query-args-ignored'),
      plusAsSpace: fault('plus-as-space-in-path'),
      decodeTwice: fault('double-percent-decoding'),
      trimBody: fault('body-trailing-newline-trimmed'),
    });
    if (fault('path-args-reversed'))
      args.splice(1, url.segments.length - 1, ...args.slice(1, url.segments.length).reverse());
    const outcome = await engine.runOne(args, principal);
    if (fault('hgetall-empty-body') && isHgetall(args)) return void reply.code(200).send('');
    // Fault publish-result-object: /publish answers the receivers in an object, no result the spec allows.
    if (fault('publish-result-object') && first === 'publish' && outcome.kind === 'reply') {
      const body = JSON.stringify({ result: { receivers: outcome.reply } });
      return void reply.code(200).header('content-type', 'application/json').send(body);
    }
    if (fault('info-plain-text') && first === 'info' && outcome.kind === 'reply' && Buffer.isBuffer(outcome.reply)) {
      return void reply.code(200).header('content-type', 'text/plain; charset=utf-8').send(outcome.reply);
    }
    const answer = answers.single(outcome, format);
    // Fault head-failure-200: a HEAD answer, whose body is never sent, says success for a failed command.
    if (fault('head-failure-200') && request.method === 'HEAD' && outcome.kind === 'error')
      return void send(reply, { ...answer, status: 200 });
    send(reply, answer);
  }

  async function openStream(
    kind: StreamKind,
    segment: string | undefined,
    principal: Principal,
    reply: FastifyReply,
  ): Promise<void> {
    const name = segment === undefined ? Buffer.alloc(0) : percentDecode(segment);
    // The stream kinds are named after their Redis commands (MONITOR, SUBSCRIBE, PSUBSCRIBE).
    const access = engine.streamAccess(kind.toUpperCase(), principal);
    if ('refusal' in access) return void send(reply, answers.error(400, access.refusal));
    reply.hijack();
    try {
      await streams.open(kind, name, access.user, reply.raw);
    } catch (error) {
      const text = oneLine(error);
      let answer: Answer;
      if (error instanceof UserRejectedError) answer = answers.error(401, unauthorizedError);
      // Redis refused the command itself (e.g. NOPERM for an ACL user's channel): a command failure, 400.
      else if (error instanceof ErrorReply) answer = answers.error(400, text);
      // Redis could not be reached: no fault of the request, so a server error like every other path's.
      else answer = answers.error(500, unavailable(text).error);
      reply.raw.writeHead(answer.status, { 'content-type': answer.contentType }).end(answer.body);
    }
  }
}

/**
 * Faults monitor-no-auth and subscribe-any-token: a stream route that skips the token check (none
 * at all for /monitor, any token for /subscribe).
 */
function streamLeniency(request: FastifyRequest, url: RawUrl, fault: KvFaultCheck): Principal | undefined {
  const [first = ''] = url.segments;
  const kind = request.method === 'HEAD' ? undefined : streamOf(first.toLowerCase(), url.segments.length);
  const hasToken = /^Bearer\s+\S/i.test(request.headers.authorization ?? '') || (url.token ?? '') !== '';
  if (kind === 'monitor' && !hasToken && fault('monitor-no-auth')) return { kind: 'standard' };
  if (kind === 'subscribe' && hasToken && fault('subscribe-any-token')) return { kind: 'standard' };
  return undefined;
}

/** The first path segment, lower case, as the stream routes name it (before percent-decoding). */
function first401(url: RawUrl): string {
  return (url.segments[0] ?? '').toLowerCase();
}

/** The methods fault unknown-methods-accepted runs as commands. */
const webDavMethods = ['PROPFIND', 'LOCK', 'SEARCH'];

function isHgetall(args: readonly Buffer[]): boolean {
  return args[0]?.toString('latin1').toUpperCase() === 'HGETALL';
}

/** The URL as sent: the server routes every request to "/" and keeps the original here. */
function rawUrlOf(request: FastifyRequest): string {
  const raw = request.raw as { originalUrl?: string; url?: string };
  return raw.originalUrl ?? raw.url ?? '/';
}

function streamOf(first: string, segmentCount: number): StreamKind | undefined {
  if (first === 'monitor' && segmentCount === 1) return 'monitor';
  if ((first === 'subscribe' || first === 'psubscribe') && segmentCount === 2) return first;
  return undefined;
}
