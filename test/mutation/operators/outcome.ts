/**
 * Outcomes moved (issue 35, item 5: what comes back is a dimension too): an {error} item of an array
 * answer lifted to be the whole answer's 400 (a failing command in a /pipeline or /multi-exec answered
 * as the request's failure); a whole 400 {error} put down into a one-item array with 200 (a failure
 * answered as a success that holds it); an {error} object, whole or an item, turned into a {result}
 * holding its text (a failure answered as a success). The body keeps its content type.
 */
import type { ResponseMessage } from '../exchange.ts';
import { type Json, parseBody } from '../json-walk.ts';
import type { Operator } from '../operator.ts';

type ErrorObject = { readonly error: string };

const isErrorObject = (value: Json | undefined): value is ErrorObject =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  Object.keys(value).length === 1 &&
  typeof (value as { error?: unknown }).error === 'string';

const withJson = (response: ResponseMessage, status: number, body: Json): ResponseMessage => ({
  ...response,
  status,
  body: Buffer.from(JSON.stringify(body), 'utf8'),
});

function outcomeOperator(id: string, what: string, change: (response: ResponseMessage) => ResponseMessage | undefined) {
  const operator: Operator = {
    id: `outcome.${id}`,
    family: 'status',
    sides: ['front'],
    what,
    response: (response, _request, side) => (side === 'front' ? change(response) : undefined),
  };
  return operator;
}

export const outcomeOperators: readonly Operator[] = [
  outcomeOperator('error-item-as-whole', 'an {error} item of an array answered as the whole 400', (response) => {
    const body = parseBody(response.body);
    if (response.status !== 200 || !Array.isArray(body)) return undefined;
    const failed = body.find(isErrorObject);
    return failed === undefined ? undefined : withJson(response, 400, failed);
  }),
  outcomeOperator('whole-error-as-item', 'a 400 {error} answered 200 as a one-item array', (response) => {
    const body = parseBody(response.body);
    return response.status === 400 && isErrorObject(body) ? withJson(response, 200, [body]) : undefined;
  }),
  outcomeOperator('error-as-result', 'every {error} object, whole or an item, a {result} of its text', (response) => {
    const body = parseBody(response.body);
    const swap = (value: Json): Json => (isErrorObject(value) ? { result: value.error } : value);
    if (isErrorObject(body)) return withJson(response, response.status, swap(body));
    if (Array.isArray(body) && body.some(isErrorObject)) return withJson(response, response.status, body.map(swap));
    return undefined;
  }),
];
