/** Why a request got no usable answer, from undici's error codes: counted by class in the report. */
import type { ErrorClass } from '../../results/load-run.ts';

const byCode: Readonly<Record<string, ErrorClass>> = {
  ECONNREFUSED: 'refused',
  ECONNRESET: 'reset',
  EPIPE: 'reset',
  UND_ERR_SOCKET: 'reset',
  UND_ERR_CLOSED: 'reset',
  UND_ERR_HEADERS_TIMEOUT: 'timeout',
  UND_ERR_BODY_TIMEOUT: 'timeout',
  UND_ERR_CONNECT_TIMEOUT: 'timeout',
  ETIMEDOUT: 'timeout',
  UND_ERR_INFO: 'garbage',
  HPE_INVALID_CONSTANT: 'garbage',
  HPE_INVALID_STATUS: 'garbage',
  HPE_INVALID_HEADER_TOKEN: 'garbage',
  UND_ERR_RES_EXCEEDED_MAX_SIZE: 'garbage',
};

function codeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = 'code' in error && typeof error.code === 'string' ? error.code : undefined;
  if (code && code in byCode) return code;
  // undici wraps the socket's error (a reset during the body) as the cause.
  return 'cause' in error ? (codeOf(error.cause) ?? code) : code;
}

export function classifyError(error: unknown): { kind: ErrorClass; example: string } {
  const code = codeOf(error);
  const message = error instanceof Error ? error.message : String(error);
  // undici's parser error carries a code only for some failures (not for a status line that is not HTTP).
  const parserError = error instanceof Error && error.name === 'HTTPParserError';
  const kind = (code && byCode[code]) || (code?.startsWith('HPE_') || parserError ? 'garbage' : 'other');
  return { kind, example: `${code ? `${code}: ` : ''}${message}`.split('\n')[0] ?? '' };
}
