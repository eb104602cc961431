/**
 * `--image NAME[:TAG]`: an implementation's container as the target. The target file carries a
 * template: `image` says which ports the container exposes, its environment and what to wait for, and
 * the URLs say `{host}` and `{port:N}` (the mapped port of container port N), so the credentials the
 * environment gives the container are the ones the target uses. testcontainers starts it on whatever
 * Docker-compatible engine the environment names (the Podman socket of container-engine.sh here); the
 * run gets the resolved target as a file (mode 600, in a temporary folder) and the container is stopped
 * and removed afterwards, also after Ctrl-C (the run's first signal ends it normally).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, resolve as resolvePath } from 'node:path';
import { GenericContainer, getContainerRuntimeClient, type StartedTestContainer, Wait } from 'testcontainers';
import { containerEngineGate, engineHasImage } from '../../shared/container-engine-gate.ts';
import { parseDurationMs } from '../../shared/duration.ts';
import { harnessError, oneLine } from '../../shared/errors.ts';
import { findFreePort } from '../../shared/free-port.ts';
import { readJsonFile } from '../../shared/json-file.ts';
import { loadTargetFileSync } from '../../target/read-target.ts';
import type { ImageTemplate } from '../../target/target.ts';

export interface ImageTarget {
  /** The resolved target file the run reads. */
  readonly targetPath: string;
  readonly image: string;
  /** The running container (the soak's process faults act on it). */
  readonly container: StartedTestContainer;
  /** The template it was started from. */
  readonly template: ImageTemplate;
  /** The host port a container port is published on. */
  mappedPort(containerPort: number): number;
  stop(): Promise<void>;
}

export interface ImageStartOptions {
  /**
   * Publish each port on a free host port chosen here, not one the engine picks at each start: a
   * container the soak kills and starts again keeps the URLs its target names. @default false
   */
  readonly fixedHostPorts?: boolean;
  /** Where a container that could not be removed is said. @default standard error */
  readonly log?: (line: string) => void;
}

const defaultStartupMs = 60_000;

/** `{host}` and `{port:N}` in every string of the target, after the container started. */
export function resolveTemplate(value: unknown, host: string, port: (containerPort: number) => number): unknown {
  if (typeof value === 'string') {
    return value.replaceAll('{host}', host).replace(/\{port:(\d+)\}/g, (_, n: string) => String(port(Number(n))));
  }
  if (Array.isArray(value)) return value.map((item) => resolveTemplate(item, host, port));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolveTemplate(item, host, port)]));
  }
  return value;
}

/** The file paths a target names (tls.ca, a messaging adapter) made absolute: the resolved file lives elsewhere. */
function anchorPaths(value: unknown, folder: string): unknown {
  const target = value as { tls?: { ca?: string }; messaging?: { adapter?: string } };
  const absolute = (path: string) => (isAbsolute(path) ? path : join(folder, path));
  return {
    ...target,
    ...(target.tls?.ca !== undefined && { tls: { ...target.tls, ca: absolute(target.tls.ca) } }),
    ...(target.messaging?.adapter !== undefined &&
      target.messaging.adapter !== 'real-world' && {
        messaging: { ...target.messaging, adapter: absolute(target.messaging.adapter) },
      }),
  };
}

function waitStrategy(template: ImageTemplate) {
  const wait = template.wait;
  if (wait?.log !== undefined) return Wait.forLogMessage(new RegExp(wait.log));
  if (wait?.http !== undefined) {
    const status = wait.http.status;
    return Wait.forHttp(wait.http.path ?? '/', wait.http.port).forStatusCodeMatching((code) =>
      status === undefined ? code >= 200 && code < 500 : code === status,
    );
  }
  return Wait.forListeningPorts();
}

/**
 * Stops and removes the container. A stop or remove the engine refused or let time out (a slow
 * machine's Podman did: the container stayed, stopped) is followed by a forced remove; what still
 * fails is one line naming the container, so it is never left behind unsaid.
 */
async function removeContainer(
  container: StartedTestContainer,
  image: string,
  log: (line: string) => void,
): Promise<void> {
  let first: unknown;
  try {
    await container.stop({ timeout: 2_000, remove: true });
    return;
  } catch (error) {
    first = error;
  }
  try {
    const client = await getContainerRuntimeClient();
    await client.container.getById(container.getId()).remove({ force: true, v: true });
  } catch (error) {
    // 404: it is gone after all (the first attempt removed it before failing).
    if ((error as { statusCode?: number }).statusCode === 404) return;
    log(
      `image: container ${container.getId().slice(0, 12)} of ${image} was not removed (${oneLine(first)}; then ${oneLine(error)}): remove it with the engine's rm -f`,
    );
  }
}

/**
 * Starts the container of `targetFile`'s `image` template (the image named by `image`, else the
 * template's `name`) and writes the resolved target. Throws one SVC_CONFIG or SVC_TARGET_UNREACHABLE line.
 */
export async function startImageTarget(
  targetFile: string,
  image: string | undefined,
  options: ImageStartOptions = {},
): Promise<ImageTarget> {
  // Checked as a target first (the template's URLs pass the schema), so a mistake is a line before any start.
  const target = loadTargetFileSync(targetFile);
  const template = target.image;
  if (template === undefined) {
    throw harnessError(
      'SVC_CONFIG',
      `target file ${targetFile}: --image needs an "image" template (ports, env, wait) and URLs with {host} and {port:N}`,
    );
  }
  const name = image ?? template.name;
  if (name === undefined)
    throw harnessError('SVC_USAGE', `target file ${targetFile}: no image to start: give --image NAME[:TAG]`);
  const gate = containerEngineGate(process.env);
  if (gate.kind === 'absent')
    throw harnessError('SVC_TARGET_UNREACHABLE', `--image ${name}: no container engine: ${gate.reason}`);
  try {
    if (!(await engineHasImage(name, gate.where))) {
      throw harnessError(
        'SVC_CONFIG',
        `--image ${name}: no such image on the engine at ${gate.where} (build or pull it first)`,
      );
    }
  } catch (error) {
    if ((error as { code?: string }).code === 'SVC_CONFIG') throw error;
    throw harnessError(
      'SVC_TARGET_UNREACHABLE',
      `--image ${name}: no container engine answers at ${gate.where}: ${oneLine(error)}`,
    );
  }
  const startupMs = template.wait?.timeout === undefined ? defaultStartupMs : parseDurationMs(template.wait.timeout);
  if (startupMs === undefined) {
    throw harnessError(
      'SVC_CONFIG',
      `target file ${targetFile}: image.wait.timeout is no duration: ${template.wait?.timeout}`,
    );
  }
  let container: StartedTestContainer;
  try {
    const ports = options.fixedHostPorts
      ? await Promise.all(template.ports.map(async (port) => ({ container: port, host: await findFreePort() })))
      : template.ports;
    let builder = new GenericContainer(name)
      .withExposedPorts(...ports)
      .withEnvironment({ ...template.env })
      .withWaitStrategy(waitStrategy(template))
      .withStartupTimeout(startupMs);
    if (template.command !== undefined) builder = builder.withCommand([...template.command]);
    container = await builder.start();
  } catch (error) {
    throw harnessError('SVC_TARGET_UNREACHABLE', `--image ${name}: the container did not start: ${oneLine(error)}`);
  }
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  let stopping: Promise<void> | undefined;
  const dir = await mkdtemp(join(tmpdir(), 'svc-image-target-'));
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      await removeContainer(container, name, log);
      await rm(dir, { recursive: true, force: true });
    })();
    return stopping;
  };
  try {
    const host = container.getHost();
    const { image: _template, ...raw } = readJsonFile(targetFile, 'target file') as Record<string, unknown>;
    const resolved = resolveTemplate(raw, host, (port) => {
      if (!template.ports.includes(port)) {
        throw harnessError(
          'SVC_CONFIG',
          `target file ${targetFile}: {port:${port}} names a port image.ports does not expose`,
        );
      }
      return container.getMappedPort(port);
    });
    const targetPath = join(dir, 'target.json');
    await writeFile(
      targetPath,
      `${JSON.stringify(anchorPaths(resolved, dirname(resolvePath(targetFile))), null, 2)}\n`,
      {
        mode: 0o600,
      },
    );
    loadTargetFileSync(targetPath);
    return { targetPath, image: name, container, template, mappedPort: (port) => container.getMappedPort(port), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
