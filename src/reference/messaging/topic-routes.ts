/**
 * URL groups (topics), as the real service and its official SDK (`client.urlGroups`) have them: upsert
 * endpoints (which creates the group), list, get, remove endpoints, delete. The spec names groups only
 * through the callback body's topicName and endpointName and the account's max_topics and
 * max_endpoints_per_topic, which are enforced here ("Limits"): a change past either is a 400 naming it.
 */
import type { FastifyInstance } from 'fastify';
import { MessagingError } from './messaging-error.ts';
import { httpUrl } from './publish-request.ts';
import type { RouteContext } from './route-context.ts';
import { jsonBody, queueNamePattern } from './route-input.ts';
import {
  type EndpointSelector,
  removeEndpoints,
  type Topic,
  type TopicEndpoint,
  upsertEndpoints,
} from './topic-store.ts';

/** Group and endpoint names: letters, digits, `-`, `.` and `_`, as the SDK documents for groups. */
export const topicNamePattern = queueNamePattern;

function groupName(name: string): string {
  if (!topicNamePattern.test(name)) {
    throw new MessagingError(400, `invalid url group name ${JSON.stringify(name)}: use letters, digits, -, . or _`);
  }
  return name;
}

/** The `endpoints` array of a request body, each item checked with `item`. */
function endpointList<T>(body: Record<string, unknown>, item: (value: Record<string, unknown>, at: number) => T): T[] {
  const list = body.endpoints;
  if (!Array.isArray(list) || list.length === 0) throw new MessagingError(400, 'endpoints must be a non-empty array');
  return list.map((value, at) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new MessagingError(400, `endpoints[${at}] must be an object`);
    }
    return item(value as Record<string, unknown>, at);
  });
}

function endpointName(value: unknown, at: number): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string' || !topicNamePattern.test(value)) {
    throw new MessagingError(400, `endpoints[${at}].name must be letters, digits, -, . or _`);
  }
  return value;
}

function newEndpoint(value: Record<string, unknown>, at: number): TopicEndpoint {
  if (typeof value.url !== 'string') throw new MessagingError(400, `endpoints[${at}].url must be a string`);
  const name = endpointName(value.name, at);
  const url = httpUrl(value.url, `endpoints[${at}].url`);
  return name === undefined ? { url } : { name, url };
}

function selector(value: Record<string, unknown>, at: number): EndpointSelector {
  const name = endpointName(value.name, at);
  const url = typeof value.url === 'string' && value.url !== '' ? value.url : undefined;
  if (name === undefined && url === undefined) throw new MessagingError(400, `endpoints[${at}] needs a name or a url`);
  return { ...(name !== undefined && { name }), ...(url !== undefined && { url }) };
}

const notFound = (name: string) => new MessagingError(404, `url group ${JSON.stringify(name)} not found`);

export function topicRoutes(app: FastifyInstance, context: RouteContext): void {
  const { options, v } = context;
  const { topics, account, fault } = options;

  app.post<{ Params: { name: string } }>(`${v}/topics/:name/endpoints`, async (request, reply) => {
    const name = groupName(request.params.name);
    const given = endpointList(jsonBody(request.body), newEndpoint);
    const plan = (await account.record()).account;
    // Spec "Limits": the account's max_topics and max_endpoints_per_topic; each fault lifts one.
    const maxEndpoints = fault('endpoint-limit-unchecked') ? Number.POSITIVE_INFINITY : plan.max_endpoints_per_topic;
    const maxTopics = fault('topic-limit-unchecked') ? -1 : plan.max_topics;
    const now = Date.now();
    const changed = await topics.change(name, maxTopics, (current): Topic | { refused: string } => {
      const endpoints = upsertEndpoints(current?.endpoints ?? [], given);
      if (endpoints.length > maxEndpoints) {
        return {
          refused: `url group ${JSON.stringify(name)} would have ${endpoints.length} endpoints: the plan's max_endpoints_per_topic is ${maxEndpoints}`,
        };
      }
      return { name, createdAt: current?.createdAt ?? now, updatedAt: now, endpoints };
    });
    if (changed.kind === 'refused') throw new MessagingError(400, changed.reason);
    if (changed.kind === 'topics-limit') {
      throw new MessagingError(400, `a new url group exceeds the plan's max_topics of ${maxTopics}`);
    }
    return reply.code(200).send();
  });

  app.delete<{ Params: { name: string } }>(`${v}/topics/:name/endpoints`, async (request, reply) => {
    const name = request.params.name;
    const selectors = endpointList(jsonBody(request.body), selector);
    const changed = await topics.change(name, -1, (current) => {
      if (current === undefined) return { refused: 'not found' };
      return { ...current, updatedAt: Date.now(), endpoints: removeEndpoints(current.endpoints, selectors) };
    });
    if (changed.kind !== 'written') throw notFound(name);
    return reply.code(200).send();
  });

  app.get(`${v}/topics`, async () => topics.topics());

  app.get<{ Params: { name: string } }>(`${v}/topics/:name`, async (request) => {
    const topic = await topics.topic(request.params.name);
    if (topic === undefined) throw notFound(request.params.name);
    return topic;
  });

  app.delete<{ Params: { name: string } }>(`${v}/topics/:name`, async (request, reply) => {
    const name = request.params.name;
    const changed = await topics.change(name, -1, (current) =>
      current === undefined ? { refused: 'not found' } : undefined,
    );
    if (changed.kind !== 'written') throw notFound(name);
    return reply.code(200).send();
  });
}
