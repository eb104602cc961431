/**
 * What the soak faults: the implementation it runs against, started by itself when it can be. A target
 * file with `process` is started as it says. No target: the reference, as `serve` in a process of its
 * own on fixed ports, on a Redis in another process of its own, so a kill of the reference loses what a
 * kill of a real service would (what it held in memory), never its Redis, and never leaves a Redis
 * behind; it starts again with the same tokens (`serve`'s SVC_SERVE_*_TOKEN variables), as a real
 * service keeps its credentials across a restart. A target file without `process` is run against as it
 * is: process faults then have nothing to act on, which the soak refuses before it starts.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { findRedisServer } from '../../reference/embedded.ts';
import { parseDurationMs } from '../../shared/duration.ts';
import { harnessError, oneLine } from '../../shared/errors.ts';
import { findFreePort } from '../../shared/free-port.ts';
import { loadTargetFileSync, parseTarget } from '../../target/read-target.ts';
import type { ProcessTemplate, Target } from '../../target/target.ts';
import { type FaultableProcess, ManagedProcess, type ProcessSpec } from './managed-process.ts';

export interface SoakImplementation {
  readonly target: Target;
  /** The process the process faults act on; undefined for a target the soak did not start. */
  readonly process?: FaultableProcess;
  /**
   * `reference` (serve, started here), `process` (the target file's), `image` (its template's container,
   * `--image`), `given` (running already).
   */
  readonly kind: 'reference' | 'process' | 'image' | 'given';
  /** Secrets the soak made (the reference's tokens), for redaction. */
  readonly secrets: readonly string[];
  stop(): Promise<void>;
}

/** The CLI's bin, in the repository (src/engines/soak → bin) and in the package (dist/src/engines/soak → bin). */
function binPath(): string {
  for (const up of ['../../../bin/svc-harness.js', '../../../../bin/svc-harness.js']) {
    const path = fileURLToPath(new URL(up, import.meta.url));
    if (existsSync(path)) return path;
  }
  throw harnessError('SVC_INTERNAL', 'soak: the svc-harness bin is not where the package keeps it');
}

function specOf(template: ProcessTemplate): ProcessSpec {
  const ms = (text: string | undefined, what: string) => {
    if (text === undefined) return undefined;
    const value = parseDurationMs(text);
    if (value === undefined || !(value > 0)) {
      throw harnessError('SVC_CONFIG', `target process.${what} "${text}" is not a duration above zero`);
    }
    return value;
  };
  const readyTimeoutMs = ms(template.readyTimeout, 'readyTimeout');
  const stopTimeoutMs = ms(template.stopTimeout, 'stopTimeout');
  return {
    command: template.command,
    ...(template.args !== undefined && { args: template.args }),
    ...(template.env !== undefined && { env: template.env }),
    ...(template.cwd !== undefined && { cwd: template.cwd }),
    ready: template.ready,
    ...(readyTimeoutMs !== undefined && { readyTimeoutMs }),
    ...(stopTimeoutMs !== undefined && { stopTimeoutMs }),
  };
}

async function started(spec: ProcessSpec, what: string): Promise<ManagedProcess> {
  try {
    return await ManagedProcess.start(spec);
  } catch (error) {
    throw harnessError('SVC_REFERENCE_START', `soak: ${what} did not start: ${oneLine(error)}`);
  }
}

/** The reference as `serve` on a Redis of its own, both in processes the soak owns. */
async function startReferenceProcess(serveArgs: readonly string[]): Promise<SoakImplementation> {
  const redisServer = findRedisServer(process.env);
  if (redisServer === undefined) {
    throw harnessError(
      'SVC_REDIS_UNAVAILABLE',
      'soak: the reference needs redis-server on PATH (apt-get install redis-server)',
    );
  }
  const dir = await mkdtemp(join(tmpdir(), 'svc-soak-'));
  const stops: (() => Promise<void>)[] = [() => rm(dir, { recursive: true, force: true })];
  const stop = async () => {
    for (const step of stops.reverse()) await step().catch(() => undefined);
  };
  try {
    const redisPort = await findFreePort();
    const redis = await started(
      {
        command: redisServer,
        args: ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
        ready: { port: redisPort },
      },
      'its redis-server',
    );
    stops.push(() => redis.stop());
    const ports = await Promise.all([findFreePort(), findFreePort(), findFreePort(), findFreePort()]);
    const [kv, messaging, management, admin] = ports as [number, number, number, number];
    const targetFile = join(dir, 'target.json');
    const tokens = {
      SVC_SERVE_KV_TOKEN: randomBytes(32).toString('base64url'),
      SVC_SERVE_KV_READONLY_TOKEN: randomBytes(32).toString('base64url'),
      SVC_SERVE_ADMIN_TOKEN: randomBytes(32).toString('base64url'),
    };
    const reference = await started(
      {
        command: process.execPath,
        args: [
          binPath(),
          'serve',
          '--kv-port',
          String(kv),
          '--messaging-port',
          String(messaging),
          '--management-port',
          String(management),
          '--admin-port',
          String(admin),
          '--redis-url',
          `redis://127.0.0.1:${redisPort}`,
          '--write-target',
          targetFile,
          ...serveArgs,
        ],
        env: tokens,
        // The target file is written (whole: serve renames it into place) once every area listens,
        // moments after the admin port answers: it is waited for below.
        ready: { url: `http://127.0.0.1:${admin}/` },
        readyTimeoutMs: 60_000,
      },
      'the reference (serve)',
    );
    stops.push(() => reference.stop());
    let text: string | undefined;
    for (let tries = 0; text === undefined && tries < 100; tries++) {
      text = await readFile(targetFile, 'utf8').catch(() => undefined);
      if (text === undefined) await sleep(50);
    }
    if (text === undefined) throw harnessError('SVC_REFERENCE_START', 'soak: the reference wrote no target file');
    const target = parseTarget(JSON.parse(text), `file ${targetFile}`);
    return { target, process: reference, kind: 'reference', secrets: Object.values(tokens), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Starts what the soak runs against: the target file's process, the reference, or nothing (a target
 * running already). `needsProcess`: a process fault is asked for.
 */
export async function startSoakImplementation(
  fileTarget: Target | undefined,
  needsProcess: boolean,
  serveArgs: readonly string[] = [],
  image?: { readonly file: string; readonly name: string },
): Promise<SoakImplementation> {
  if (image !== undefined) return startImage(image.file, image.name);
  if (fileTarget === undefined) return startReferenceProcess(serveArgs);
  if (fileTarget.process !== undefined) {
    const running = await started(specOf(fileTarget.process), `the target's process (${fileTarget.process.command})`);
    return { target: fileTarget, process: running, kind: 'process', secrets: [], stop: () => running.stop() };
  }
  if (needsProcess) {
    throw harnessError(
      'SVC_USAGE',
      'soak: kill, restart and pause need an implementation the soak starts: a target file with "process", or no target (the reference)',
    );
  }
  return { target: fileTarget, kind: 'given', secrets: [], stop: async () => {} };
}

/** `--image`: the target file's template started as a container the process faults act on. */
async function startImage(file: string, name: string): Promise<SoakImplementation> {
  // Loaded on use: testcontainers costs every other soak a fifth of a second and 30 MB to import.
  const { startImageTarget } = await import('../image/image-target.ts');
  const { ContainerProcess } = await import('./container-process.ts');
  const image = await startImageTarget(file, name, { fixedHostPorts: true });
  try {
    const target = loadTargetFileSync(image.targetPath);
    const running = await ContainerProcess.of(image);
    return {
      target,
      process: running,
      kind: 'image',
      // The container's environment holds the credentials its target repeats.
      secrets: Object.values(image.template.env ?? {}),
      stop: () => running.stop(),
    };
  } catch (error) {
    await image.stop();
    throw error;
  }
}
