/**
 * Checks of area C answers (spec "Resources and their fields": Search index, Messaging account):
 * small named functions that return what they verified or throw one CheckFailure(rule, received,
 * expected). The objects carry secrets (`password`, `token`, `read_only_token`): no text made here
 * holds their values, which read `<secret>` wherever an answer is shown.
 */
import { isDeepStrictEqual } from 'node:util';
import {
  CheckFailure,
  type HttpResponse,
  headerValue,
  jsonBody,
  messagingAccountFields,
  type SpecField,
  searchIndexFields,
  secretFieldNames,
  show,
} from '../../src/suite-kit/suite-api.ts';
import { checkThat, isRecord } from './checks.ts';

export { checkThat, isRecord };

/** The fields of area C's objects whose values are secrets (the spec's tables mark them). */
export const secretFields: ReadonlySet<string> = secretFieldNames;

/** A copy of a JSON value with every secret field's value (at any depth) replaced by `<secret>`. */
export function withoutSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (!isRecord(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([field, item]) => [field, secretFields.has(field) ? '<secret>' : withoutSecrets(item)]),
  );
}

/** How one field's value reads in a text: `<secret>` for a secret field, else its short JSON. */
export function showField(field: string, value: unknown): string {
  return secretFields.has(field) ? '<secret>' : show(value, 80);
}

/**
 * `status 400 (application/json) {"error":"…"}`: how an answer reads in a received text or a note.
 * A JSON body is shown without its secrets; any other body only by its length (it could hold one).
 */
export function describeAnswer(res: HttpResponse, max = 160): string {
  const type = (headerValue(res, 'content-type') ?? 'no content type').split(';')[0];
  const body = jsonBody(res);
  const text =
    res.body.length === 0
      ? 'empty body'
      : body === undefined
        ? `a body of ${res.body.length} bytes that is not JSON`
        : show(withoutSecrets(body), max);
  return `status ${res.status} (${type}) ${text}`;
}

/** Status 200 and a JSON object body; returns the object. */
export function objectAnswer(rule: string, res: HttpResponse, what: string, context?: string): Record<string, unknown> {
  const body = jsonBody(res);
  if (res.status !== 200 || !isRecord(body)) {
    throw new CheckFailure(rule, describeAnswer(res), `status 200 with ${what} (a JSON object)`, context);
  }
  return body;
}

/** An answer carrying an index object: a JSON object with an id and at least one other index field. */
export function looksLikeIndex(res: HttpResponse): boolean {
  const body = jsonBody(res);
  return isRecord(body) && 'id' in body && ['name', 'region', 'type', 'endpoint', 'token'].some((f) => f in body);
}

/** A refused request: no 2xx status, and no index object in the answer. */
export function checkRefused(rule: string, res: HttpResponse, context?: string) {
  checkThat(
    rule,
    (res.status < 200 || res.status > 299) && !looksLikeIndex(res),
    describeAnswer(res),
    'a refusal: no 2xx status and no index in the answer',
    context,
  );
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: unknown): boolean {
  return typeof value === 'string' && uuidPattern.test(value);
}

/**
 * What a field of a table holds: a type of the spec's, or `present` for a field whose value another
 * rule judges (an enum, partner_email's empty string), so one defect fails one rule.
 */
export type FieldKind = 'string' | 'uuid' | 'integer' | 'number' | 'boolean' | 'present' | 'throughput';

const kindText: Readonly<Record<FieldKind, string>> = {
  string: 'a string',
  uuid: 'a UUID string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'a boolean',
  present: 'present',
  throughput: 'an array of {x: string, y: number}',
};

function hasKind(kind: FieldKind, value: unknown): boolean {
  switch (kind) {
    case 'string':
      return typeof value === 'string';
    case 'uuid':
      return isUuid(value);
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'present':
      return value !== undefined;
    case 'throughput':
      return (
        Array.isArray(value) &&
        value.every((item) => isRecord(item) && typeof item.x === 'string' && typeof item.y === 'number')
      );
  }
}

/**
 * A suite table from the spec's (src/protocol/management/resource-fields.ts, the one home of both
 * tables): each field with its type, except that an enum only needs to be present here (its values
 * have a rule of their own), and so does each field named in `ownRule`, so one defect fails one rule.
 */
function suiteTable(
  fields: Readonly<Record<string, SpecField>>,
  ownRule: Readonly<Record<string, FieldKind>> = {},
): Readonly<Record<string, FieldKind>> {
  return Object.fromEntries(
    Object.entries(fields).map(([name, field]) => [
      name,
      ownRule[name] ?? (field.type === 'enum' ? 'present' : field.type),
    ]),
  );
}

/** Spec "Search index (area C)": every field; type, region and partner_email have rules of their own. */
export const indexFieldTable = suiteTable(searchIndexFields, {
  // The id's form is C.index.id-uuid's business; being a string, C.index.fields'.
  id: 'string',
  partner_email: 'present',
});

/** Spec "Messaging account (area C)": every field; state, type and reserved_type have rules of their own. */
export const accountFieldTable = suiteTable(messagingAccountFields);

/** The fields of a table typed integer: their raw JSON literals are judged too (checkIntegerLiterals). */
export function integerFields(table: Readonly<Record<string, FieldKind>>): string[] {
  return Object.entries(table)
    .filter(([, kind]) => kind === 'integer')
    .map(([field]) => field);
}

/** Each field of the table the object lacks or holds with another type, as `name: what it is`. */
export function fieldProblems(object: Record<string, unknown>, table: Readonly<Record<string, FieldKind>>): string[] {
  const problems: string[] = [];
  for (const [field, kind] of Object.entries(table)) {
    const value = object[field];
    if (value === undefined) problems.push(`${field} missing`);
    else if (!hasKind(kind, value)) problems.push(`${field} ${showField(field, value)} (not ${kindText[kind]})`);
  }
  return problems;
}

/** Every field of the table is present with its type. */
export function checkFields(
  rule: string,
  object: Record<string, unknown>,
  table: Readonly<Record<string, FieldKind>>,
  what: string,
  context?: string,
) {
  const problems = fieldProblems(object, table);
  checkThat(
    rule,
    problems.length === 0,
    problems.join('; '),
    `every field of the ${what} table with its type (${Object.keys(table).length} fields)`,
    context,
  );
}

/** The field's value is one of `allowed`; returns it. */
export function checkEnum(
  rule: string,
  object: Record<string, unknown>,
  field: string,
  allowed: readonly unknown[],
  context?: string,
): unknown {
  const value = object[field];
  checkThat(
    rule,
    allowed.includes(value),
    `${field} ${value === undefined ? 'missing' : showField(field, value)}`,
    `${field} one of ${allowed.map((item) => JSON.stringify(item)).join(', ')}`,
    context,
  );
  return value;
}

/** The fields where two objects differ (in either), as `name: a → b`, secrets shown as `<secret>`. */
export function differences(
  first: Record<string, unknown>,
  second: Record<string, unknown>,
  ignore: readonly string[] = [],
): string[] {
  const fields = [...new Set([...Object.keys(first), ...Object.keys(second)])].filter((f) => !ignore.includes(f));
  return fields
    .filter((field) => !isDeepStrictEqual(first[field], second[field]))
    .map((field) => {
      const side = (object: Record<string, unknown>) =>
        field in object ? showField(field, object[field]) : '(absent)';
      const secretBoth = secretFields.has(field) && field in first && field in second;
      return secretBoth ? `${field} differs (values not shown)` : `${field}: ${side(first)} → ${side(second)}`;
    });
}

/**
 * One note for many requests: the requests that got the same answer share it,
 * `a, b: status 400 (…) {…} | c: status 404 (…)`.
 */
export function groupedAnswers(entries: readonly (readonly [label: string, answer: string])[]): string {
  const byAnswer = new Map<string, string[]>();
  for (const [label, answer] of entries) byAnswer.set(answer, [...(byAnswer.get(answer) ?? []), label]);
  return [...byAnswer.entries()].map(([answer, labels]) => `${labels.join(', ')}: ${answer}`).join(' | ');
}

/**
 * Spec "Endpoints > Area C": "200: Search index object". Whatever a request asked, an answer with
 * status 200 is that object: an error body (or any other object) under 200 fails C.index.fields, the
 * rule of the object it claims to be. Any other status is not judged here (area C shows none).
 */
export function checkIndexIfOk(res: HttpResponse, context: string) {
  if (res.status !== 200) return;
  const body = jsonBody(res);
  if (!isRecord(body)) {
    throw new CheckFailure('C.index.fields', describeAnswer(res), 'a search index object (status 200)', context);
  }
  checkFields('C.index.fields', body, indexFieldTable, 'search index (status 200)', context);
}
