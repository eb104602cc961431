/**
 * A lane: one reference (`svc-harness serve --retry-backoff 10ms`, its own Redis), a mutating proxy in
 * front of each of its areas and one between it and the sink, and a target file whose URLs point at
 * the proxies. Mutant runs in one lane follow each other; two lanes run side by side, so a case that
 * changes the target (a daily limit, a plan's rate, a key rotation) never meets another run.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { request } from 'undici';
import { findFreePort } from '../../src/shared/free-port.ts';
import { type StartedProcess, startCli } from '../support/run-cli.ts';
import type { Area, Exchange } from './exchange.ts';
import { type Mutant, type MutatingProxy, startMutatingProxy } from './mutating-proxy.ts';
import type { TargetCredentials } from './operator.ts';

interface TargetFile {
  readonly kv?: { url: string; token: string; readOnlyToken?: string };
  readonly messaging?: { url: string; token: string; regions?: Record<string, string> };
  readonly management?: { url: string; username: string; password: string };
  readonly admin?: { url: string; token: string };
  readonly [field: string]: unknown;
}

export interface Lane {
  /** The target file pointing at the proxies. */
  readonly targetFile: string;
  readonly credentials: TargetCredentials;
  /** The secrets of the target, to keep out of anything printed. */
  readonly secrets: readonly string[];
  setMutant(mutant: Mutant | undefined): void;
  /** Exchanges the mutant changed: the count and up to three lines. */
  fired(): { readonly count: number; readonly changed: readonly string[] };
  close(): Promise<void>;
}

const areas: readonly Area[] = ['kv', 'messaging', 'management'];
const startTimeoutMs = 60_000;

async function waitForFile(path: string, server: StartedProcess): Promise<TargetFile> {
  const deadline = Date.now() + startTimeoutMs;
  let exited = false;
  void server.finished.then(() => {
    exited = true;
  });
  while (Date.now() < deadline && !exited) {
    try {
      return JSON.parse(await readFile(path, 'utf8')) as TargetFile;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  const run = await Promise.race([server.finished, Promise.resolve(undefined)]);
  throw new Error(
    `svc-harness serve did not write its target file${run ? `: ${run.stderr.trim().split('\n').at(-1)}` : ''}`,
  );
}

function credentialsOf(target: TargetFile): TargetCredentials {
  return {
    ...(target.kv && {
      kv: { token: target.kv.token, ...(target.kv.readOnlyToken && { readOnlyToken: target.kv.readOnlyToken }) },
    }),
    ...(target.messaging && { messaging: { token: target.messaging.token } }),
    ...(target.management && {
      management: { username: target.management.username, password: target.management.password },
    }),
  };
}

/** The signing keys now, from the reference's admin hook (they rotate during a messaging run). */
function keyReader(admin: TargetFile['admin']): () => Promise<readonly string[]> {
  return async () => {
    if (!admin) return [];
    const answer = await request(`${admin.url}/messaging/keys`, {
      headers: { authorization: `Bearer ${admin.token}` },
    });
    if (answer.statusCode !== 200) {
      await answer.body.dump();
      return [];
    }
    const keys = (await answer.body.json()) as { current?: string; next?: string };
    return [keys.current, keys.next].filter((key): key is string => typeof key === 'string');
  };
}

export async function startLane(options: {
  readonly dir: string;
  readonly name: string;
  readonly sinkWaitSeconds: number;
  readonly onExchange?: (exchange: Exchange) => void;
}): Promise<Lane> {
  const direct = join(options.dir, `${options.name}-reference.json`);
  const server = startCli(['serve', '--retry-backoff', '10ms', '--write-target', direct], { timeoutMs: 3_600_000 });
  const proxies: MutatingProxy[] = [];
  let closing: Promise<void> | undefined;
  try {
    const target = await waitForFile(direct, server);
    const credentials = credentialsOf(target);
    const signingKeys = keyReader(target.admin);
    const front = async (area: Area, url: string) => {
      const proxy = await startMutatingProxy({
        upstream: url,
        side: 'front',
        area,
        credentials,
        signingKeys,
        ...(options.onExchange && { onExchange: options.onExchange }),
      });
      proxies.push(proxy);
      return proxy.url;
    };
    const proxied: Record<string, unknown> = { ...target, name: `${options.name}-proxied` };
    for (const area of areas) {
      const entry = target[area];
      if (!entry) continue;
      const url = await front(area, entry.url);
      proxied[area] = { ...entry, url };
      if (area === 'messaging' && target.messaging?.regions) {
        proxied[area] = {
          ...(proxied[area] as object),
          regions: Object.fromEntries(Object.keys(target.messaging.regions).map((region) => [region, url])),
        };
      }
    }
    const sinkPort = await findFreePort();
    const delivery = await startMutatingProxy({
      upstream: `http://127.0.0.1:${sinkPort}`,
      side: 'delivery',
      area: 'messaging',
      credentials,
      signingKeys,
      ...(options.onExchange && { onExchange: options.onExchange }),
    });
    proxies.push(delivery);
    proxied.sink = { host: '127.0.0.1', port: sinkPort, url: delivery.url, waitSeconds: options.sinkWaitSeconds };
    const targetFile = join(options.dir, `${options.name}-proxied.json`);
    await writeFile(targetFile, `${JSON.stringify(proxied, null, 2)}\n`);
    const secrets = [
      credentials.kv?.token,
      credentials.kv?.readOnlyToken,
      credentials.messaging?.token,
      credentials.management?.password,
      target.admin?.token,
    ].filter((secret): secret is string => typeof secret === 'string');
    return {
      targetFile,
      credentials,
      secrets,
      setMutant: (mutant) => {
        for (const proxy of proxies) proxy.setMutant(mutant);
      },
      fired: () => ({
        count: proxies.reduce((sum, proxy) => sum + proxy.fired(), 0),
        changed: proxies.flatMap((proxy) => proxy.changed()).slice(0, 3),
      }),
      // Once, however often it is asked (the runner's end and a signal may both ask).
      close: () => {
        closing ??= (async () => {
          await Promise.all(proxies.map((proxy) => proxy.close()));
          server.child.kill('SIGTERM');
          await server.finished;
        })();
        return closing;
      },
    };
  } catch (error) {
    await Promise.all(proxies.map((proxy) => proxy.close()));
    server.child.kill('SIGTERM');
    await server.finished;
    throw error;
  }
}
