/**
 * A scenario's request as the bytes an HTTP/1.1 client writes, for the socket path: the request line,
 * the header block (built and checked once per headers object, which `requestHeaders` already shares
 * between requests), and the body with its length. What undici would send, without its per-request
 * header validation: the names and values are checked once, when their block is built.
 */
import { harnessError } from '../../../shared/errors.ts';

// RFC 9110's token for names; a value is visible ASCII, spaces and tabs (no CR, LF or NUL: the request is
// written as one UTF-8 string, and undici would write a header as latin1).
const tokenPattern = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const valuePattern = /^[\t\x20-\x7e]*$/;

export class WireEncoder {
  private readonly blocks = new WeakMap<object, string>();

  private readonly host: string;
  private readonly basePath: string;

  /** `host` is the Host header; `basePath` is prefixed to every path (no trailing slash). */
  constructor(host: string, basePath: string) {
    this.host = host;
    this.basePath = basePath;
  }

  encode(method: string, path: string, headers: Readonly<Record<string, string>>, body: string | undefined): string {
    let block = this.blocks.get(headers);
    if (block === undefined) {
      block = this.block(headers);
      this.blocks.set(headers, block);
    }
    const line = `${method} ${this.basePath}${path} HTTP/1.1\r\n${block}`;
    if (body !== undefined) return `${line}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    // As undici does: a method that carries a payload says its length even when it is empty.
    return method === 'GET' || method === 'HEAD' ? `${line}\r\n` : `${line}content-length: 0\r\n\r\n`;
  }

  private block(headers: Readonly<Record<string, string>>): string {
    let block = `host: ${this.host}\r\n`;
    for (const [name, value] of Object.entries(headers)) {
      const lower = name.toLowerCase();
      // The connection's own headers are the client's to write, as undici refuses them from a caller.
      if (lower === 'host' || lower === 'content-length' || lower === 'connection' || lower === 'transfer-encoding') {
        continue;
      }
      if (!tokenPattern.test(name) || !valuePattern.test(value)) {
        throw harnessError('SVC_USAGE', `load: the header ${JSON.stringify(name)} is not a valid HTTP header`);
      }
      block += `${name}: ${value}\r\n`;
    }
    return block;
  }
}
