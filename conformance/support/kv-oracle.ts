/**
 * The combination matrix's oracle, written from the spec alone (never from a reference's answers):
 * for a request form × encoding header × format header × credentials, the status and body shape a
 * conforming target answers, the rules each part of that answer follows, or "observe" where the
 * spec is silent.
 */

export const requestForms = [
  'get-path',
  'head-path',
  'post-path',
  'put-path',
  'post-body',
  'post-root',
  'pipeline',
  'multi-exec',
] as const;
export type RequestForm = (typeof requestForms)[number];

export const encodingValues = ['absent', 'base64'] as const;
export type EncodingValue = (typeof encodingValues)[number];

export const formatValues = ['absent', 'json', 'resp2', 'invalid'] as const;
export type FormatValue = (typeof formatValues)[number];

export const credentialValues = ['bearer', 'query', 'read-only', 'none', 'wrong'] as const;
export type CredentialValue = (typeof credentialValues)[number];

export interface MatrixCell {
  readonly form: RequestForm;
  readonly encoding: EncodingValue;
  readonly format: FormatValue;
  readonly credentials: CredentialValue;
}

/** What a conforming target answers to a cell whose command is a read that succeeds. */
export type CellExpectation =
  /** 200, application/json, `{result}` (or an array of one item for pipeline and multi-exec). */
  | { readonly kind: 'json-result'; readonly items: boolean; readonly base64: boolean }
  /** 200, application/octet-stream, the RESP2 bytes of the reply. */
  | { readonly kind: 'resp2' }
  /** HEAD: status 200; no body to check, but a content type it sends is the format's. */
  | { readonly kind: 'head-ok'; readonly contentType: string }
  /**
   * One of the statuses; `jsonError` when the body must be `{error}`; `headContentType`: a HEAD's label,
   * when it sends one, is the JSON error's.
   */
  | {
      readonly kind: 'refused';
      readonly statuses: readonly number[];
      readonly jsonError: boolean;
      /**
       * The error text starts with a class token (spec "Status codes", area B): a 400's. A 401's text is
       * left alone: older deployments of the real service answered `Unauthorized` (where the spec is silent).
       */
      readonly classToken?: boolean;
      readonly headContentType?: string;
    }
  /** The spec is silent: record what the target does. */
  | { readonly kind: 'observe'; readonly why: string };

export interface CellOracle {
  readonly expect: CellExpectation;
  /** Blamed when the status is wrong. */
  readonly statusRule: string;
  /** Blamed when the body is wrong. */
  readonly bodyRule: string;
  /** Blamed when the content type is wrong. */
  readonly contentTypeRule: string;
  /** Every rule the cell checks. */
  readonly rules: readonly string[];
}

const formRules: Record<RequestForm, readonly string[]> = {
  'get-path': ['B.methods.allowed', 'B.path.command-args'],
  'head-path': ['B.methods.allowed', 'B.path.command-args'],
  'post-path': ['B.methods.allowed', 'B.path.command-args'],
  'put-path': ['B.methods.allowed', 'B.path.command-args'],
  'post-body': ['B.post.body-last-arg', 'B.post.query-args'],
  'post-root': ['B.root.json-array'],
  pipeline: ['B.pipeline.order'],
  'multi-exec': ['B.multi-exec.results'],
};

/** The rules of a request form itself (the first is the one its plainest use answers to). */
export function formRulesOf(form: RequestForm): readonly string[] {
  return formRules[form];
}

const credentialRules: Record<CredentialValue, string> = {
  bearer: 'B.auth.bearer',
  query: 'B.auth.query-token',
  'read-only': 'B.auth.read-only.reads',
  none: 'B.auth.missing-401',
  wrong: 'B.auth.invalid-401',
};

/** The rule of the header a cell sends, when it sends one that changes the answer. */
function headerRule(cell: MatrixCell): string | undefined {
  if (cell.format === 'resp2') return cell.form === 'multi-exec' ? 'B.multi-exec.json-only' : 'B.format.resp2';
  if (cell.encoding === 'base64') return 'B.encoding.base64';
  if (cell.format === 'json') return 'B.format.json';
  return undefined;
}

export function cellOracle(cell: MatrixCell): CellOracle {
  const [formRule = 'B.status.ok-200'] = formRules[cell.form];
  const authRule = credentialRules[cell.credentials];
  const authorized = cell.credentials === 'bearer' || cell.credentials === 'query' || cell.credentials === 'read-only';
  const head = cell.form === 'head-path';
  const multiExec = cell.form === 'multi-exec';
  // Rule 2: any format other than json or resp2 gives 400, on every path.
  const invalidFormat = cell.format === 'invalid';
  // Rule 3 gives 400 for base64 with resp2; rule 4 says resp2 does not apply to /multi-exec, so whether
  // rule 3 still holds there is not shown.
  const base64Resp2 = cell.encoding === 'base64' && cell.format === 'resp2';
  const headerProblem = invalidFormat
    ? 'B.format.invalid-400'
    : base64Resp2 && !multiExec
      ? 'B.format.base64-with-resp2-400'
      : undefined;
  const rules = (...extra: (string | undefined)[]) => [
    ...new Set([...formRules[cell.form], authRule, ...extra].filter((rule): rule is string => rule !== undefined)),
  ];

  if (!authorized) {
    if (headerProblem !== undefined) {
      // Both "missing or invalid token gives 401" and "… gives 400" hold; the spec shows no precedence.
      return {
        expect: { kind: 'refused', statuses: [400, 401], jsonError: false },
        statusRule: authRule,
        bodyRule: authRule,
        contentTypeRule: authRule,
        rules: rules(headerProblem),
      };
    }
    // A resp2 error body is not shown (JSON or a RESP2 error line); /multi-exec answers JSON only.
    const jsonError = !head && (cell.format !== 'resp2' || multiExec);
    // The error body is JSON, so its label is the json format's (checkErrorBody blames B.format.json).
    const jsonLabel = cell.format !== 'resp2';
    return {
      expect: {
        kind: 'refused',
        statuses: [401],
        jsonError,
        ...(head && jsonLabel && { headContentType: 'application/json' }),
      },
      statusRule: authRule,
      bodyRule: authRule,
      contentTypeRule: authRule,
      rules: rules(jsonError || (head && jsonLabel) ? 'B.format.json' : undefined),
    };
  }
  if (headerProblem !== undefined) {
    // An invalid format asks for no format, so the error is the default JSON; with base64+resp2 it is not shown.
    const jsonError = !head && invalidFormat;
    return {
      expect: { kind: 'refused', statuses: [400], jsonError, classToken: jsonError },
      statusRule: headerProblem,
      bodyRule: headerProblem,
      contentTypeRule: headerProblem,
      rules: rules(
        headerProblem,
        ...(jsonError ? ['B.format.json', 'B.errors.class-token', 'B.observe.error-class'] : []),
      ),
    };
  }
  if (base64Resp2 && multiExec) {
    return {
      expect: { kind: 'observe', why: 'base64 with resp2 on /multi-exec (rule 3 against rule 4) is not shown' },
      statusRule: authRule,
      bodyRule: authRule,
      contentTypeRule: authRule,
      rules: rules(),
    };
  }
  if (cell.format === 'resp2' && cell.form === 'pipeline') {
    return {
      expect: { kind: 'observe', why: 'resp2 on /pipeline is not shown' },
      statusRule: 'B.observe.pipeline-resp2',
      bodyRule: 'B.observe.pipeline-resp2',
      contentTypeRule: 'B.observe.pipeline-resp2',
      rules: rules('B.observe.pipeline-resp2'),
    };
  }
  const header = headerRule(cell);
  const statusRule = cell.credentials === 'bearer' ? (header ?? formRule) : authRule;
  if (head) {
    const rule = statusRule;
    // HEAD sends the headers GET would (RFC 9110 §9.3.2): the label of the format asked for.
    const resp2 = cell.format === 'resp2';
    return {
      expect: { kind: 'head-ok', contentType: resp2 ? 'application/octet-stream' : 'application/json' },
      statusRule,
      bodyRule: rule,
      contentTypeRule: resp2 ? 'B.format.resp2' : 'B.format.json',
      rules: rules('B.status.ok-200', header, resp2 ? 'B.format.resp2' : 'B.format.json'),
    };
  }
  if (cell.format === 'resp2' && !multiExec) {
    const rule = 'B.format.resp2';
    return { expect: { kind: 'resp2' }, statusRule, bodyRule: rule, contentTypeRule: rule, rules: rules(rule) };
  }
  const items = cell.form === 'pipeline' || multiExec;
  const base64 = cell.encoding === 'base64';
  const bodyRule = header ?? (items ? formRule : 'B.response.result-shape');
  return {
    expect: { kind: 'json-result', items, base64 },
    statusRule,
    bodyRule,
    contentTypeRule: header === 'B.multi-exec.json-only' ? header : 'B.format.json',
    rules: rules('B.status.ok-200', 'B.format.json', header, items ? undefined : 'B.response.result-shape'),
  };
}

/** Every cell of the matrix, in table order. */
export function matrixCells(): MatrixCell[] {
  const cells: MatrixCell[] = [];
  for (const form of requestForms)
    for (const encoding of encodingValues)
      for (const format of formatValues)
        for (const credentials of credentialValues) cells.push({ form, encoding, format, credentials });
  return cells;
}

export function cellName(cell: MatrixCell): string {
  return `${cell.form} encoding=${cell.encoding} format=${cell.format} credentials=${cell.credentials}`;
}
