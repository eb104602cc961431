/**
 * JSON at every depth: array items dropped, duplicated or reversed at one depth; strings base64-encoded
 * that should not be, or decoded that should; integers written as doubles or rounded through one;
 * numbers as strings and back; a number off by one; fields dropped, renamed or of the wrong type; the
 * class token taken off an error text. The front side changes answers, the delivery side the bodies
 * the target sends (callbacks), re-signed so only the content is wrong.
 */
import type { Exchange, ResponseMessage } from '../exchange.ts';
import {
  type Json,
  nodes,
  parseBody,
  rebuild,
  sameJson,
  stringifyIntegersAsDoubles,
  type Visit,
} from '../json-walk.ts';
import type { Operator, OperatorFamily } from '../operator.ts';
import { withBody } from './signature.ts';

/** Changes a JSON text; undefined when there is nothing to change. */
type TextChange = (text: string) => string | undefined;

function jsonOperator(id: string, what: string, change: TextChange, sides: Operator['sides'] = ['front', 'delivery']) {
  const changeBody = (body: Buffer): Buffer | undefined => {
    if (parseBody(body) === undefined) return undefined;
    const next = change(body.toString('utf8'));
    return next === undefined ? undefined : Buffer.from(next, 'utf8');
  };
  const operator: Operator = {
    id,
    family: 'json',
    sides,
    what,
    response(response, _request, side): ResponseMessage | undefined {
      if (side !== 'front') return undefined;
      const body = changeBody(response.body);
      return body ? { ...response, body } : undefined;
    },
    async request(request, context) {
      if (context.side !== 'delivery') return undefined;
      const body = changeBody(request.body);
      return body ? { request: await withBody(request, body, context) } : undefined;
    },
  };
  return operator;
}

/** A text change from a tree change: parse, visit every node, write back if anything changed. */
function treeChange(visit: Visit): TextChange {
  return (text) => {
    const before = JSON.parse(text) as Json;
    const after = rebuild(before, visit);
    return sameJson(before, after) ? undefined : JSON.stringify(after);
  };
}

const isArray = (value: Json): value is Json[] => Array.isArray(value);
const isObject = (value: Json): value is { [key: string]: Json } =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

// One character class, no groups: linear on long strings.
const base64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The text a string decodes to when it is plausible base64 of UTF-8 text, else undefined. */
function decodedText(value: string): string | undefined {
  if (value.length < 4 || value.length % 4 !== 0 || !base64.test(value)) return undefined;
  const text = Buffer.from(value, 'base64').toString('utf8');
  return text.includes('\uFFFD') || Buffer.from(text, 'utf8').toString('base64') !== value ? undefined : text;
}

function offByOne(value: Json): Json {
  if (typeof value === 'number') return value + 1;
  if (typeof value === 'string' && /^-?\d{1,15}$/.test(value)) return String(Number(value) + 1);
  return value;
}

function wrongType(value: Json): Json {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'string') return /^-?\d{1,15}$/.test(value) ? Number(value) : [value];
  if (value === null) return 'null';
  return JSON.stringify(value);
}

/** Depths where an array with at least `min` items sits. */
function arrayDepths(min: number): (exchange: Exchange) => string[] {
  return (exchange) => {
    const root = parseBody(exchange.side === 'front' ? exchange.response.body : exchange.request.body);
    if (root === undefined) return [];
    const depths = new Set<string>();
    for (const [value, , depth] of nodes(root)) if (isArray(value) && value.length >= min) depths.add(String(depth));
    return [...depths];
  };
}

function arrayFamily(base: string, what: string, min: number, change: (items: Json[]) => Json[]): OperatorFamily {
  return {
    base,
    params: arrayDepths(min),
    make: (depth) =>
      jsonOperator(
        `${base}@${depth}`,
        `${what} (arrays at depth ${depth})`,
        treeChange((value, _key, at) =>
          isArray(value) && value.length >= min && String(at) === depth ? change(value) : value,
        ),
      ),
  };
}

/** Field names of the JSON body on the side the operator changes. */
function fieldNames(exchange: Exchange): string[] {
  const root = parseBody(exchange.side === 'front' ? exchange.response.body : exchange.request.body);
  if (root === undefined) return [];
  const names = new Set<string>();
  for (const [, key] of nodes(root)) if (key !== undefined) names.add(key);
  return [...names];
}

function fieldFamily(
  base: string,
  what: string,
  change: (object: { [key: string]: Json }, name: string) => { [key: string]: Json },
  sides: Operator['sides'] = ['front', 'delivery'],
): OperatorFamily {
  return {
    base,
    params: (exchange) => (sides.includes(exchange.side) ? fieldNames(exchange) : []),
    make: (name) =>
      jsonOperator(
        `${base}:${name}`,
        `${what} ${name}`,
        treeChange((value) => (isObject(value) && name in value ? change(value, name) : value)),
        sides,
      ),
  };
}

export const jsonFamilies: readonly OperatorFamily[] = [
  arrayFamily('json.item-dropped', 'the last item of an array left out', 1, (items) => items.slice(0, -1)),
  arrayFamily('json.item-duplicated', 'the first item of an array repeated', 1, (items) => [
    items[0] as Json,
    ...items,
  ]),
  arrayFamily('json.items-reversed', 'the items of an array reversed', 2, (items) => [...items].reverse()),
  fieldFamily('json.field-dropped', 'field left out:', (object, name) => {
    const { [name]: _gone, ...rest } = object;
    return rest;
  }),
  fieldFamily('json.field-renamed', 'field renamed (x_ prefix):', (object, name) => {
    const { [name]: value, ...rest } = object;
    return { ...rest, [`x_${name}`]: value as Json };
  }),
  fieldFamily(
    'json.field-off-by-one',
    'number off by one in field',
    (object, name) => ({ ...object, [name]: offByOne(object[name] as Json) }),
    ['delivery'],
  ),
  fieldFamily(
    'json.field-wrong-type',
    'value of the wrong type in field',
    (object, name) => ({ ...object, [name]: wrongType(object[name] as Json) }),
    ['delivery'],
  ),
];

export const jsonOperators: readonly Operator[] = [
  jsonOperator(
    'json.string-base64-encoded',
    'every string base64-encoded',
    treeChange((value) => (typeof value === 'string' ? Buffer.from(value, 'utf8').toString('base64') : value)),
  ),
  jsonOperator(
    'json.string-base64-decoded',
    'every base64 string decoded',
    treeChange((value) => (typeof value === 'string' ? (decodedText(value) ?? value) : value)),
  ),
  jsonOperator('json.integer-as-double', 'integers written as doubles (1 → 1.0)', (text) => {
    const value = JSON.parse(text) as Json;
    const hasInteger = [...nodes(value)].some(([node]) => typeof node === 'number' && Number.isInteger(node));
    return hasInteger ? stringifyIntegersAsDoubles(value) : undefined;
  }),
  jsonOperator('json.big-integer-rounded', 'integers beyond 2^53 rounded through a double', (text) => {
    // On the text, since a parsed number is rounded already; only number tokens, never digits inside a
    // string (INFO's server_time_usec has 16 digits, and rounding it is no integer of the answer rounded).
    const next = text.replace(/"(?:[^"\\]|\\.)*"|(?<![\d.eE+])-?\d{16,}(?![\d.eE])/g, (token) =>
      token.startsWith('"') ? token : String(Number(token)),
    );
    return next === text ? undefined : next;
  }),
  jsonOperator(
    'json.number-as-string',
    'numbers written as strings',
    treeChange((value) => (typeof value === 'number' ? String(value) : value)),
  ),
  jsonOperator(
    'json.numeric-string-as-number',
    'strings of digits written as numbers',
    treeChange((value) => (typeof value === 'string' && /^-?\d{1,15}$/.test(value) ? Number(value) : value)),
  ),
  jsonOperator(
    'json.number-off-by-one',
    'every number off by one',
    treeChange((value) => (typeof value === 'number' ? value + 1 : value)),
  ),
  jsonOperator(
    'json.error-class-stripped',
    'the class token taken off error texts (ERR foo → foo)',
    treeChange((value, key) =>
      key === 'error' && typeof value === 'string' && /^[A-Z]{2,}[:,]? \S/.test(value)
        ? value.replace(/^\S+ /, '')
        : value,
    ),
  ),
];
