/**
 * Runs the cells of the combination matrix for one request form: one read command per cell (HMGET
 * of a seeded hash, so the answer holds strings and a null), at most 8 requests in flight, each
 * answer checked against the oracle; silent cells are recorded, grouped by what the target did.
 */
import {
  type CaseContext,
  type CellCover,
  CheckFailure,
  type HttpResponse,
  isCheckFailure,
  means,
  show,
  toBase64,
} from '../../src/suite-kit/suite-api.ts';
import { cover } from '../rules/dimensions.ts';
import { mapLimit } from './bounded.ts';
import type { CredentialKind } from './credentials.ts';
import { keySpace } from './key-space.ts';
import {
  checkClassToken,
  checkContentType,
  checkErrorBody,
  checkHeadContentType,
  checkResultBody,
  checkStatus,
  describe,
  itemsOf,
  mediaType,
} from './kv-checks.ts';
import { createKvClient, type KvCallOptions, type KvClient } from './kv-client.ts';
import {
  type CellExpectation,
  type CellOracle,
  cellName,
  cellOracle,
  formRulesOf,
  type MatrixCell,
  matrixCells,
  type RequestForm,
} from './kv-oracle.ts';
import { step } from './kv-steps.ts';
import { resp2 } from './resp2.ts';

const concurrency = 8;
const invalidFormat = 'xml';

interface Probe {
  send(kv: KvClient, options: KvCallOptions): Promise<HttpResponse>;
  /** The reply's strings and nulls, in order. */
  readonly reply: readonly (string | null)[];
}

const values = { f1: 'alpha', f2: 'beta', f3: 'gamma' } as const;

/** The read each form sends: an HMGET whose fields say which arguments reached the command. */
function probeFor(form: RequestForm, key: string): Probe {
  switch (form) {
    case 'get-path':
    case 'head-path':
    case 'post-path':
    case 'put-path': {
      const method =
        form === 'get-path' ? 'GET' : form === 'head-path' ? 'HEAD' : form === 'post-path' ? 'POST' : 'PUT';
      return { send: (kv, o) => kv.path(method, ['hmget', key, 'f1', 'nofield'], o), reply: [values.f1, null] };
    }
    case 'post-body':
      // Body `f1` is the last path argument, then the query pair adds `f3 nofield`.
      return {
        send: (kv, o) => kv.postBody(['hmget', key], 'f1', [['f3', 'nofield']], o),
        reply: [values.f1, values.f3, null],
      };
    case 'post-root':
      return { send: (kv, o) => kv.root(['HMGET', key, 'f2', 'nofield'], o), reply: [values.f2, null] };
    case 'pipeline':
      return { send: (kv, o) => kv.pipeline([['HMGET', key, 'f3', 'nofield']], o), reply: [values.f3, null] };
    case 'multi-exec':
      return { send: (kv, o) => kv.multiExec([['HMGET', key, 'f3', 'nofield']], o), reply: [values.f3, null] };
  }
}

function optionsFor(cell: MatrixCell): KvCallOptions {
  return {
    credentials: { kind: cell.credentials satisfies CredentialKind },
    ...(cell.encoding === 'base64' && { encoding: 'base64' }),
    ...(cell.format === 'json' && { format: 'json' }),
    ...(cell.format === 'resp2' && { format: 'resp2' }),
    ...(cell.format === 'invalid' && { format: invalidFormat }),
  };
}

function checkCell(oracle: CellOracle, res: HttpResponse, probe: Probe): string | undefined {
  const { expect } = oracle;
  switch (expect.kind) {
    case 'json-result': {
      checkStatus(oracle.statusRule, res, 200);
      checkContentType(oracle.contentTypeRule, res, 'application/json');
      const reply = expect.base64 ? probe.reply.map((v) => (v === null ? v : toBase64(v))) : probe.reply;
      const result = expect.items ? resultOfItem(oracle.bodyRule, res) : checkResultBody(oracle.bodyRule, res);
      if (JSON.stringify(result) !== JSON.stringify(reply)) {
        throw new CheckFailure(oracle.bodyRule, `result ${show(result)}`, `result ${show(reply)}`);
      }
      return undefined;
    }
    case 'resp2': {
      checkStatus(oracle.statusRule, res, 200);
      checkContentType(oracle.contentTypeRule, res, 'application/octet-stream');
      const bytes = resp2(probe.reply);
      if (!res.body.equals(bytes)) throw new CheckFailure(oracle.bodyRule, `body ${show(res.body)}`, `${show(bytes)}`);
      return undefined;
    }
    case 'head-ok':
      checkStatus(oracle.statusRule, res, 200);
      checkHeadContentType(res, expect.contentType, oracle.contentTypeRule);
      return undefined;
    case 'refused': {
      checkStatus(oracle.statusRule, res, expect.statuses);
      let unknownClass: string | undefined;
      if (expect.jsonError) {
        const text = checkErrorBody(oracle.bodyRule, res);
        // An upper-case word that is no Redis class is an observation (B.observe.error-class), not a failure.
        if (expect.classToken === true)
          checkClassToken('B.errors.class-token', text, undefined, undefined, (note) => {
            unknownClass = note;
          });
      }
      // A refused HEAD has no body, but a label it sends is the JSON error's (checkErrorBody's rule).
      if (expect.headContentType !== undefined) checkHeadContentType(res, expect.headContentType, 'B.format.json');
      if (unknownClass !== undefined) return unknownClass;
      return expect.statuses.length > 1 ? `401 or 400 not ordered by the spec: status ${res.status}` : undefined;
    }
    case 'observe':
      return `${expect.why}: status ${res.status} ${mediaType(res) ?? 'no content type'} ${show(res.body, 60)}`;
  }
}

/** The content type a success of the expectation carries, when it names one. */
function labelOf(expect: CellExpectation): string | undefined {
  if (expect.kind === 'json-result') return 'application/json';
  if (expect.kind === 'resp2') return 'application/octet-stream';
  if (expect.kind === 'head-ok') return expect.contentType;
  return undefined;
}

function wrongLabel(expect: CellExpectation, res: HttpResponse): boolean {
  const wanted = labelOf(expect);
  const type = mediaType(res);
  if (expect.kind === 'head-ok') return type !== undefined && type !== wanted;
  return wanted !== undefined && type !== wanted;
}

/**
 * The rule a wrong reply of the form's plainest cell breaks: the reply is not the one of the command
 * the form was meant to carry, so the rule of how the form carries a command and its arguments.
 */
function replyRuleOf(form: RequestForm): string {
  if (form === 'get-path' || form === 'head-path' || form === 'post-path' || form === 'put-path')
    return 'B.path.command-args';
  const [rule = 'B.response.result-shape'] = formRulesOf(form);
  return rule;
}

function resultOfItem(rule: string, res: HttpResponse): unknown {
  const [item] = itemsOf(rule, res, 1);
  if (item === undefined || !('result' in item)) throw new CheckFailure(rule, show(item), 'a {result} item');
  return item.result;
}

/** Runs every cell of `form`; throws the first failure, naming how many cells failed and which rules. */
export async function runMatrixForm(ctx: CaseContext, form: RequestForm): Promise<void> {
  const kv = createKvClient(ctx);
  const key = keySpace(ctx, kv).key('hash');
  await step(kv, ['HSET', key, 'f1', values.f1, 'f2', values.f2, 'f3', values.f3]);
  const probe = probeFor(form, key);
  const hasReadOnly = ctx.target.kv?.readOnlyToken !== undefined;
  const cells = matrixCells().filter((cell) => cell.form === form && (hasReadOnly || cell.credentials !== 'read-only'));
  if (!hasReadOnly) ctx.observe('read-only cells not run: the target has no read-only token');
  // The positive first: the form answers its plainest cell (Standard token, no vendor header). A
  // target without the form (it does not answer that cell's success status) would fail every cell on
  // rules the cells never got to check (auth, encodings, formats), so the case is blocked by the form's
  // own rule instead. A form that does answer, but wrongly, is no missing precondition: a wrong label
  // fails the content-type rule, and a wrong reply fails the rule of how the form carries the command.
  const plain = cells.find(
    (cell) => cell.credentials === 'bearer' && cell.encoding === 'absent' && cell.format === 'absent',
  );
  if (plain !== undefined) {
    const oracle = cellOracle(plain);
    const res = await probe.send(kv, optionsFor(plain));
    try {
      checkCell(oracle, res, probe);
    } catch (error) {
      if (!isCheckFailure(error)) throw error;
      const [formRule = error.rule] = formRulesOf(form);
      const where = `${form}, plainest cell`;
      if (res.status !== 200)
        await means(async () => {
          throw new CheckFailure(formRule, `${error.received} [${describe(res)}]`, error.expected, where);
        });
      // checkCell judges the label before the body: a label failure is the content-type rule's.
      if (error.rule === oracle.contentTypeRule && wrongLabel(oracle.expect, res)) throw error;
      throw new CheckFailure(replyRuleOf(form), `${error.received} [${describe(res)}]`, error.expected, where);
    }
  }

  const outcomes = await mapLimit(cells, concurrency, async (cell) => {
    const oracle = cellOracle(cell);
    const res = await probe.send(kv, optionsFor(cell));
    try {
      return { cell, note: checkCell(oracle, res, probe) };
    } catch (error) {
      if (!isCheckFailure(error)) throw error;
      // The answer's description, not the answer: a failing cell of hundreds must not keep its body.
      return { cell, failure: error, answer: describe(res) };
    }
  });

  const notes = new Map<string, string[]>();
  for (const outcome of outcomes) {
    if (outcome.note === undefined) continue;
    const cells = notes.get(outcome.note) ?? [];
    cells.push(cellName(outcome.cell).replace(`${form} `, ''));
    notes.set(outcome.note, cells);
  }
  for (const [note, cellNames] of notes) {
    ctx.observe(
      `${form}: ${note} (${cellNames.length} cells: ${cellNames.slice(0, 3).join('; ')}${cellNames.length > 3 ? '; …' : ''})`,
    );
  }

  const failures = outcomes.filter((outcome) => outcome.failure !== undefined);
  const first = failures[0];
  if (first?.failure) {
    const rules = [...new Set(failures.map((outcome) => outcome.failure?.rule))].join(', ');
    const context = `${failures.length}/${cells.length} cells failed (rules ${rules}); first: ${cellName(first.cell)}`;
    throw new CheckFailure(
      first.failure.rule,
      `${first.failure.received} [${first.answer}]`,
      first.failure.expected,
      context,
    );
  }
}

/** The rules the cells of one form check, for the case's `rules`. */
export function matrixFormRules(form: RequestForm): string[] {
  const rules = new Set<string>();
  for (const cell of matrixCells()) if (cell.form === form) for (const rule of cellOracle(cell).rules) rules.add(rule);
  return [...rules].sort();
}

/** The cells of the rules' dimensions one form's matrix case checks (conformance/rules/kv-dimensions.ts). */
export function matrixFormCovers(form: RequestForm): CellCover[] {
  const endpoint = [form];
  const covers = [
    cover('B.auth.bearer', { endpoint }),
    cover('B.auth.query-token', { endpoint }),
    cover('B.auth.read-only.reads', { endpoint }),
    cover('B.auth.missing-401', { endpoint }),
    cover('B.auth.invalid-401', { endpoint, credentials: ['wrong-header'] }),
  ];
  // A HEAD answer has no body to encode, but it sends the format's label.
  if (form === 'head-path') return [...covers, cover('B.format.json', { endpoint })];
  return [...covers, cover('B.encoding.base64', { endpoint }), cover('B.format.json', { endpoint })];
}
