/**
 * Area C's routes (spec "Area C, management"): create and read search indexes, read the messaging
 * account. Every route, and every unknown path, is behind HTTP Basic. Answers are JSON; errors are
 * `{error}` bodies with the real service's statuses (400 invalid request, 401, 404), since the spec
 * shows none. The fastify logger is off, so no request, body or secret reaches a log.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Dialect } from '../../target/dialects.ts';
import type { AccountStore } from '../account/messaging-account.ts';
import { withIntegersAsDoubles } from '../integers-as-doubles.ts';
import { renderAccount } from './account-answer.ts';
import { renderIndex, type WireObject } from './index-answer.ts';
import { ManagementInputError, readCreateIndex } from './index-input.ts';
import { accountIntegerFields, indexIntegerFields } from './integer-fields.ts';
import { basicCredentialsMatch } from './management-auth.ts';
import type { ManagementFaultCheck } from './management-fault-check.ts';
import type { ManagementSilenceCheck } from './management-silences.ts';
import { newSearchIndex } from './search-index.ts';
import type { SearchIndexStore } from './search-index-store.ts';

export interface ManagementPluginOptions {
  readonly accounts: AccountStore;
  readonly indexes: SearchIndexStore;
  readonly dialect: Dialect;
  readonly fault: ManagementFaultCheck;
  /** The silence switches on: another legal choice where the spec is silent. */
  readonly silence: ManagementSilenceCheck;
}

const secret = () => randomBytes(32).toString('base64url');

/** The silence's statuses for area C's refusals (none is shown): 401, 400 and 404 as another service might. */
const ownStatuses: Readonly<Record<number, number>> = { 401: 403, 400: 422, 404: 400 };

/**
 * A refusal: the real service's status and an `{error}` body, or (the silence) another status with
 * its status text as plain text: area C's error statuses and bodies are not shown.
 */
function failWith(silence: ManagementSilenceCheck) {
  return (reply: FastifyReply, status: number, error: string): FastifyReply => {
    if (silence('management-errors-own')) {
      const own = ownStatuses[status] ?? status;
      return reply
        .code(own)
        .header('content-type', 'text/plain; charset=utf-8')
        .send(STATUS_CODES[own] ?? 'error');
    }
    return reply.code(status).header('content-type', 'application/json; charset=utf-8').send({ error });
  };
}

/** Fields of the silence beyond the spec's tables: a text, a number and an object. */
const extraFields = { plan_name: 'svc-harness reference', updated_at: '2026-01-01T00:00:00Z', features: {} };

/** An object answer as JSON; the fault switches given write these integer fields as doubles. */
function sendObject(reply: FastifyReply, object: WireObject, doubles: readonly string[]): FastifyReply {
  if (doubles.length === 0) return reply.send(object);
  return reply
    .header('content-type', 'application/json; charset=utf-8')
    .send(withIntegersAsDoubles(JSON.stringify(object), doubles));
}

/** A body the JSON parser refused: a client error, answered 400 like any invalid request. */
function badJson(message: string): Error & { statusCode: number } {
  return Object.assign(new Error(message), { statusCode: 400 });
}

export async function managementPlugin(app: FastifyInstance, options: ManagementPluginOptions): Promise<void> {
  const { accounts, indexes, dialect, fault, silence } = options;
  const fail = failWith(silence);
  const extra = silence('management-extra-fields') ? extraFields : {};
  const version = fault('management-unversioned-paths') ? '' : '/v2';
  const accountPath = `${version}${dialect.accountPath.replace(/^\/v2(?=\/)/, '')}`;

  // Clients send JSON with or without a content type (curl's default is form-encoded): the body is
  // read as JSON whatever it is labelled, and an empty body is no body.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text) as unknown);
    } catch {
      done(badJson('the body is not valid JSON'), undefined);
    }
  });

  app.addHook('onRequest', async (request, reply) => {
    if (fault('management-no-auth')) return;
    const record = await accounts.record();
    const expected = { username: record.account.customer_id, password: record.managementKey };
    if (!basicCredentialsMatch(request.headers.authorization, expected)) {
      reply.header('www-authenticate', 'Basic realm="management", charset="UTF-8"');
      return fail(reply, 401, 'unauthorized: missing or wrong HTTP Basic credentials');
    }
  });

  app.setNotFoundHandler((_request, reply) => fail(reply, 404, 'not found'));

  // Fastify's own error bodies ({statusCode, code, error, message}) are replaced by the area's {error}.
  app.setErrorHandler((error: { statusCode?: number; message: string }, _request, reply) => {
    if (error instanceof ManagementInputError) return fail(reply, 400, error.message);
    const status = error.statusCode ?? 500;
    if (status === 413) return fail(reply, 413, 'the request body is too large');
    if (status >= 400 && status < 500) return fail(reply, 400, error.message);
    return fail(reply, 500, 'internal server error');
  });

  /** The index created last, for fault unknown-id-other-index. */
  let lastCreated: WireObject | undefined;

  app.post(`${version}/search`, async (request, reply) => {
    const { input, asGiven } = readCreateIndex(request.body, {
      fillMissing: fault('index-missing-field-accepted'),
      anyType: fault('index-type-any-value'),
      anyRegion: fault('index-region-any-value'),
    });
    const { account } = await accounts.record();
    const index = newSearchIndex(input, {
      customerId: account.customer_id,
      id: fault('index-id-not-uuid') ? randomBytes(12).toString('hex') : randomUUID(),
      token: secret(),
      readOnlyToken: secret(),
      nowMs: Date.now(),
    });
    const answer: WireObject = { ...renderIndex(index, fault), ...asGiven, ...extra };
    await indexes.save(index.id, answer);
    lastCreated = answer;
    reply.code(fault('create-status-201') ? 201 : 200);
    return sendObject(reply, answer, fault('index-integers-as-doubles') ? indexIntegerFields : []);
  });

  app.get<{ Params: { id: string } }>(`${version}/search/:id`, async (request, reply) => {
    const index = await indexes.get(request.params.id);
    // Fault unknown-id-other-index: an unknown id read as the index created last.
    if (index === undefined && lastCreated !== undefined && fault('unknown-id-other-index'))
      return sendObject(reply, lastCreated, []);
    if (index === undefined) return fail(reply, fault('unknown-index-200') ? 200 : 404, 'no search index has this id');
    if (fault('get-index-differs')) return { ...index, token: secret(), read_only_token: secret() };
    return sendObject(reply, index, fault('index-integers-as-doubles') ? indexIntegerFields : []);
  });

  app.get(accountPath, async (_request, reply) => {
    const { account } = await accounts.record();
    reply.code(fault('account-status-201') ? 201 : 200);
    const doubles = fault('account-integers-as-doubles') ? accountIntegerFields : [];
    return sendObject(reply, { ...renderAccount(account, dialect, fault), ...extra }, doubles);
  });
}
