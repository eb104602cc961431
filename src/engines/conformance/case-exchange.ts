/**
 * The request behind a case that did not pass, as a `curl` line a reader can paste, and the start of
 * the answer it got. The target's secrets become the environment variables the harness reads them from
 * (`$SVC_TOKEN`, `$SVC_KV_TOKEN`, `-u "$SVC_MGMT_USERNAME:$SVC_MGMT_PASSWORD"`), so the line reproduces
 * the failure with the reader's own credentials and shows none; anything secret left is redacted.
 */
import type { Exchange } from '../../http/exchange-log.ts';
import type { CaseExchange } from '../../results/conformance-run.ts';
import { createRedactor, type Redactor, urlSecrets, wholeValuePattern } from '../../shared/redact.ts';
import type { Target } from '../../target/target.ts';

/**
 * The target's secrets and the variable standing for each in a curl line. One secret held twice (one
 * token for two areas) takes the first area's variable.
 */
function secretVariables(target: Target): ReadonlyMap<string, string> {
  const pairs: [string | undefined, string][] = [
    [target.messaging?.token, 'SVC_TOKEN'],
    [target.kv?.token, 'SVC_KV_TOKEN'],
    [target.kv?.readOnlyToken, 'SVC_KV_READONLY_TOKEN'],
    [target.management?.password, 'SVC_MGMT_PASSWORD'],
    [target.admin?.token, 'SVC_ADMIN_TOKEN'],
  ];
  const variables = new Map<string, string>();
  for (const [secret, variable] of pairs) {
    if (secret !== undefined && secret !== '' && !variables.has(secret)) variables.set(secret, variable);
  }
  return variables;
}

/** A mark no request text holds (private-use characters), turned into `'"$VAR"'` once the argument is quoted. */
const mark = (variable: string) => `\uE000${variable}\uE001`;

/** One shell word in single quotes, with each marked variable spliced in double quotes. */
function shellWord(text: string): string {
  if (/^[\w\-.:/=@%+,]+$/.test(text)) return text;
  const quoted = `'${text.replaceAll("'", `'\\''`)}'`.replace(/\uE000(\w+)\uE001/g, `'"$$$1"'`);
  // A variable at either end leaves an empty '' there: harmless, but noise to a reader.
  return quoted.replace(/^''(?=")/, '').replace(/(?<=")''$/, '');
}

/** JSON fields whose values are credentials: the signing keys, an index's tokens, the account's password. */
const credentialField = /"([\w-]*(?:token|password|secret|key|current|next)[\w-]*)"\s*:\s*"((?:[^"\\]|\\.)+)"/gi;
/** Headers whose values are credentials. */
const credentialHeader = /authorization|token|secret|password|api-?key/i;

/**
 * Secrets the target file does not hold but a case meets on the way (an index's tokens, the signing
 * keys, a rotated password): every credential-looking value of the request and the answer that is not
 * one of the target's (those become variables).
 */
function secretsMet(exchange: Exchange, known: ReadonlyMap<string, string>, basic: string | undefined): string[] {
  const found = [...urlSecrets(exchange.url)];
  for (const [name, value] of Object.entries(exchange.headers)) {
    if (!credentialHeader.test(name) || value === `Basic ${basic}`) continue;
    found.push(value.replace(/^(Bearer|Basic)\s+/i, ''));
  }
  for (const text of [exchange.body, exchange.answer]) {
    for (const match of (text ?? '').matchAll(credentialField)) found.push(match[2] as string);
  }
  return found.filter((value) => value.length >= 4 && !known.has(value) && !/^(Bearer|Basic)$/i.test(value));
}

export function caseExchange(exchange: Exchange, target: Target, redact: Redactor): CaseExchange {
  const variables = secretVariables(target);
  const basic =
    target.management && Buffer.from(`${target.management.username}:${target.management.password}`).toString('base64');
  const met = createRedactor(secretsMet(exchange, variables, basic));
  const known = wholeValuePattern(variables.keys());
  const substitute = (text: string) =>
    known === undefined ? met(text) : met(text).replace(known, (found) => mark(variables.get(found) as string));
  const words = ['curl', '-sS', '-i', '-X', exchange.method];
  for (const [name, value] of Object.entries(exchange.headers)) {
    if (name.toLowerCase() === 'authorization' && basic !== undefined && value === `Basic ${basic}`) {
      words.push('-u', `${mark('SVC_MGMT_USERNAME')}:${mark('SVC_MGMT_PASSWORD')}`);
    } else words.push('-H', substitute(`${name}: ${value}`));
  }
  if (exchange.bodyBytes > 0) {
    words.push(
      '--data-binary',
      exchange.body !== undefined ? substitute(exchange.body) : `@body-of-${exchange.bodyBytes}-bytes`,
    );
  }
  words.push(substitute(exchange.url));
  const curl = words.map((word) => (/^-/.test(word) ? word : shellWord(word))).join(' ');
  const answer =
    exchange.error !== undefined
      ? `no answer: ${exchange.error}`
      : // A stream's opening has no size: its events are read one by one, never kept.
        `${exchange.status} ${exchange.contentType ?? '(no content type)'}${exchange.answerBytes === undefined ? '' : `, ${exchange.answerBytes} bytes`}${exchange.answer === undefined ? '' : `: ${exchange.answer}`}`;
  return { curl: redact(curl), answer: redact(met(answer)) };
}
