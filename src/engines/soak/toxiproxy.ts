/**
 * The soak's network faults come from toxiproxy (Shopify's TCP proxy with a fault API), not from code
 * of our own: a proxy per path (harness → implementation, implementation → sink), and a fault is a
 * "toxic" added through its HTTP API and removed to heal. Chosen over network namespaces with `tc
 * netem`: it needs no root and no kernel module, runs the same in a container and on a laptop, acts on
 * one path at a time on loopback, and a partition (a blackhole, not a refusal) is one toxic; netem would
 * make the harness create and remove namespaces and veth pairs, and a run killed hard would leave them.
 * Found as `TOXIPROXY_BINARY`, else `toxiproxy-server` on PATH, else the pinned release built once from
 * the Go module proxy into the cache (go-tool.ts; 23 s here).
 *
 * The server runs in its own process group on a free loopback port, its `-seed` the soak's, so jitter
 * repeats; it is killed when the harness exits, whatever way.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { harnessError, oneLine } from '../../shared/errors.ts';
import { findFreePort } from '../../shared/free-port.ts';
import { buildGoTool, cacheDir, type Env, goBinary, onPath } from '../../shared/go-tool.ts';

/** The release the harness builds when it finds none (the newest the Go module proxy serves here). */
export const pinnedToxiproxy = '2.5.0';

export const cachedToxiproxyPath = (env: Env = process.env) =>
  join(cacheDir(env), 'toxiproxy', `v${pinnedToxiproxy}`, 'toxiproxy-server');

const noToxiproxyLine = () =>
  `no toxiproxy for the network faults: set TOXIPROXY_BINARY, put toxiproxy-server on PATH, or install Go so the harness can build v${pinnedToxiproxy}`;

/** The toxiproxy-server to run: found, or built into the cache (`log` is told before a build). */
export async function findToxiproxy(env: Env = process.env, log: (line: string) => void = () => {}): Promise<string> {
  if (env.TOXIPROXY_BINARY) {
    if (!existsSync(env.TOXIPROXY_BINARY)) {
      throw harnessError(
        'SVC_TOOL_UNAVAILABLE',
        `TOXIPROXY_BINARY names ${env.TOXIPROXY_BINARY}, which does not exist`,
      );
    }
    return env.TOXIPROXY_BINARY;
  }
  const found = onPath('toxiproxy-server', env);
  if (found) return found;
  const cached = cachedToxiproxyPath(env);
  if (existsSync(cached)) return cached;
  const go = goBinary(env);
  if (!go) throw harnessError('SVC_TOOL_UNAVAILABLE', noToxiproxyLine());
  log(`toxiproxy: building v${pinnedToxiproxy} from the Go module proxy into ${cached} (once)`);
  try {
    return await buildGoTool(
      {
        module: 'github.com/Shopify/toxiproxy/v2',
        version: `v${pinnedToxiproxy}`,
        mainPackage: 'github.com/Shopify/toxiproxy/v2/cmd/server',
        target: cached,
      },
      go,
      env,
    );
  } catch (error) {
    throw harnessError(
      'SVC_TOOL_UNAVAILABLE',
      `toxiproxy: building v${pinnedToxiproxy} with ${go} failed: ${oneLine(error)}`,
    );
  }
}

/** A toxic as toxiproxy takes it: `downstream` is what the upstream answers, `upstream` what is sent to it. */
export interface Toxic {
  readonly name: string;
  readonly type: 'latency' | 'bandwidth' | 'timeout' | 'reset_peer';
  readonly stream: 'upstream' | 'downstream';
  readonly attributes: Readonly<Record<string, number>>;
}

export interface ToxiproxyProxy {
  readonly name: string;
  /** `127.0.0.1:PORT`, where the proxied side connects. */
  readonly listen: string;
  readonly upstream: string;
}

const liveServers = new Set<ChildProcess>();
let exitHookInstalled = false;

/** A running toxiproxy-server and its API. */
export class Toxiproxy {
  readonly #child: ChildProcess;
  readonly #api: string;
  readonly #exited: Promise<void>;

  private constructor(child: ChildProcess, api: string, exited: Promise<void>) {
    this.#child = child;
    this.#api = api;
    this.#exited = exited;
  }

  /** Starts the server on a free loopback port and waits until its API answers. */
  static async start(binary: string, seed: number): Promise<Toxiproxy> {
    const port = await findFreePort();
    const child = spawn(binary, ['-host', '127.0.0.1', '-port', String(port), '-seed', String(seed)], {
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    });
    let output = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      output = `${output}${chunk.toString('utf8')}`.slice(-2000);
    });
    const exited = new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.once('error', (error) => {
        output += error.message;
        resolve();
      });
    }).then(() => {
      liveServers.delete(child);
    });
    liveServers.add(child);
    if (!exitHookInstalled) {
      exitHookInstalled = true;
      process.once('exit', () => {
        for (const live of liveServers) live.kill('SIGKILL');
      });
    }
    const server = new Toxiproxy(child, `http://127.0.0.1:${port}`, exited);
    const deadline = performance.now() + 10_000;
    for (;;) {
      try {
        await server.#call('GET', '/version');
        return server;
      } catch {
        if (child.exitCode !== null || child.signalCode !== null || performance.now() > deadline) {
          await server.stop();
          const last = output.trim().split('\n').pop() ?? 'no output';
          throw harnessError('SVC_TOOL_UNAVAILABLE', `toxiproxy (${binary}) did not start: ${last}`);
        }
        await sleep(50);
      }
    }
  }

  async #call(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<unknown> {
    const answer = await request(`${this.#api}${path}`, {
      method,
      ...(body !== undefined && { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
      signal: AbortSignal.timeout(5000),
    });
    const text = await answer.body.text();
    if (answer.statusCode >= 300) throw new Error(`toxiproxy ${method} ${path}: ${answer.statusCode} ${text.trim()}`);
    // `/version` answers plain text on some releases; the proxy and toxic calls answer JSON.
    return (answer.headers['content-type'] ?? '').includes('json') && text !== '' ? JSON.parse(text) : text;
  }

  /** A proxy to `upstream` (`host:port`) on a free loopback port. */
  async proxy(name: string, upstream: string): Promise<ToxiproxyProxy> {
    const made = (await this.#call('POST', '/proxies', {
      name,
      listen: '127.0.0.1:0',
      upstream,
      enabled: true,
    })) as { listen: string };
    return { name, listen: made.listen, upstream };
  }

  addToxic(proxy: string, toxic: Toxic): Promise<unknown> {
    return this.#call('POST', `/proxies/${encodeURIComponent(proxy)}/toxics`, { ...toxic, toxicity: 1 });
  }

  async removeToxic(proxy: string, name: string): Promise<void> {
    await this.#call('DELETE', `/proxies/${encodeURIComponent(proxy)}/toxics/${encodeURIComponent(name)}`);
  }

  /** Every toxic of every proxy removed: the run's end heals whatever is still on. */
  async reset(): Promise<void> {
    await this.#call('POST', '/reset');
  }

  /** Stops the server; never throws. */
  async stop(): Promise<void> {
    if (this.#child.exitCode === null && this.#child.signalCode === null) this.#child.kill('SIGTERM');
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), 3000);
    await this.#exited;
    clearTimeout(timer);
  }
}
