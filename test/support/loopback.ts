/** Test servers on loopback: listen on port 0 and learn the port the kernel chose. */
import type { Server as HttpServer } from 'node:http';
import { createConnection, type Server } from 'node:net';

/** Starts `server` on 127.0.0.1 at a free port; resolves to its base URL and port. */
export async function listenOnLoopback(server: Server): Promise<{ readonly url: string; readonly port: number }> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the test server has no TCP address');
  return { url: `http://127.0.0.1:${address.port}`, port: address.port };
}

/** Whether something accepts TCP connections at `url`'s host and port (any scheme). */
export function portAnswers(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = createConnection({ host: hostname, port: Number(port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Closes a test server, ending its open connections first (a stalled response would hold it). */
export function closeServer(server: HttpServer): Promise<void> {
  return new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}
