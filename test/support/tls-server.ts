/**
 * An HTTPS server on loopback with a certificate made for the test (openssl, self-signed for
 * 127.0.0.1): the one way the tests get a TLS target whose trust they control.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listenOnLoopback } from './loopback.ts';

export interface TlsServer {
  /** `https://127.0.0.1:<port>` */
  readonly url: string;
  /** The certificate, which is its own CA: what a target's `tls.ca` names to trust it. */
  readonly caFile: string;
  readonly server: Server;
  close(): Promise<void>;
}

export async function startSelfSignedServer(
  handle: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<TlsServer> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-tls-'));
  const key = join(dir, 'key.pem');
  const caFile = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1'],
      ...['-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', caFile],
    ],
    { stdio: 'ignore' },
  );
  const server = createServer({ key: readFileSync(key), cert: readFileSync(caFile) }, handle);
  const { url } = await listenOnLoopback(server);
  return {
    url: url.replace('http:', 'https:'),
    caFile,
    server,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
