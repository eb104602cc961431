/**
 * Whether a Docker-compatible engine can be tried at all, decided from the environment alone, so path 3
 * of the Redis backing fails in microseconds on machines without one instead of waiting on testcontainers.
 */
import { existsSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { join } from 'node:path';
import { withTimeout } from './with-timeout.ts';

export type EngineGate =
  | { readonly kind: 'try'; readonly where: string }
  | { readonly kind: 'absent'; readonly reason: string };

/** The sockets testcontainers' own unix-socket strategies probe when DOCKER_HOST is unset. */
function defaultSockets(env: NodeJS.ProcessEnv): string[] {
  const sockets = ['/var/run/docker.sock'];
  if (env.XDG_RUNTIME_DIR) sockets.push(join(env.XDG_RUNTIME_DIR, 'docker.sock'));
  sockets.push(
    join(homedir(), '.docker', 'run', 'docker.sock'),
    join(homedir(), '.docker', 'desktop', 'docker.sock'),
    join('/run', 'user', String(userInfo().uid), 'docker.sock'),
  );
  return sockets;
}

export function containerEngineGate(env: NodeJS.ProcessEnv): EngineGate {
  const dockerHost = env.DOCKER_HOST?.trim();
  if (dockerHost) {
    if (dockerHost.startsWith('unix://')) {
      const socket = dockerHost.slice('unix://'.length);
      if (!existsSync(socket)) return { kind: 'absent', reason: `DOCKER_HOST socket ${socket} does not exist` };
    }
    return { kind: 'try', where: dockerHost };
  }
  // testcontainers also reads ~/.testcontainers.properties; let it decide when that file exists.
  if (existsSync(join(homedir(), '.testcontainers.properties')))
    return { kind: 'try', where: '~/.testcontainers.properties' };
  const socket = defaultSockets(env).find((path) => existsSync(path));
  if (socket !== undefined) return { kind: 'try', where: `unix://${socket}` };
  return { kind: 'absent', reason: 'no DOCKER_HOST and no Docker socket' };
}

/**
 * How long an engine that the gate lets through may take to answer at all. Podman's API service answered
 * a fresh-clone CI's first image lookup after more than 5 s while both cores were full; one that is not
 * there is decided by the gate at once, so only a stuck engine waits this long.
 */
const engineAnswerMs = 20_000;

/**
 * Whether `image` is on the engine the gate found at `where` (nothing can be pulled here, so the
 * Redis container and `--image` both look first, for a clear line). Throws when the engine does not
 * answer. testcontainers is loaded on use: the gate itself stays a check of the environment.
 */
export async function engineHasImage(image: string, where: string): Promise<boolean> {
  const { getContainerRuntimeClient, ImageName } = await import('testcontainers');
  const runtime = await withTimeout(
    getContainerRuntimeClient(),
    engineAnswerMs,
    `engine at ${where} did not answer within ${engineAnswerMs} ms`,
  );
  return runtime.image.exists(ImageName.fromString(image));
}
