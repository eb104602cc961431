/**
 * Path 3 of the Redis backing: a Redis container started by testcontainers on whatever Docker-compatible
 * engine the environment names (Docker, or the Podman API socket of container-engine.sh).
 *
 * What Podman needs (measured with testcontainers 12.0.4 and Podman 4.3 here): TESTCONTAINERS_RYUK_DISABLED=true,
 * since the reaper image cannot be pulled (404 "no such image: docker.io/testcontainers/ryuk");
 * TESTCONTAINERS_HOST_OVERRIDE=127.0.0.1, without which the host resolves to Podman's bridge gateway
 * (10.88.0.1) rather than loopback; and a log wait strategy: the default listening-ports strategy probes
 * inside the container with /bin/sh, which the minimal image lacks, and times out ("Port 6379/tcp not
 * bound"). The image cannot be pulled either, so its presence is checked first for a clear message.
 */
import { GenericContainer, type StartedTestContainer, Wait } from 'testcontainers';
import { containerEngineGate, engineHasImage } from '../../shared/container-engine-gate.ts';
import { oneLine } from '../../shared/errors.ts';
import type { RedisBacking } from './redis-backing.ts';
import { waitForRedis } from './redis-url.ts';

/** Built by `container-engine.sh redis-image` from this machine's redis-server. */
export const defaultRedisImage = 'localhost/svc-redis:local';
const startupTimeoutMs = 60_000;

export type ContainerOutcome =
  | { readonly kind: 'started'; readonly backing: RedisBacking }
  | { readonly kind: 'unavailable'; readonly reason: string };

/**
 * testcontainers reads the engine's address from process.env itself; `env` decides whether to try
 * (so a caller can rule the engine out) and may name another image in SVC_REDIS_IMAGE.
 */
export async function startRedisContainer(env: NodeJS.ProcessEnv): Promise<ContainerOutcome> {
  const gate = containerEngineGate(env);
  if (gate.kind === 'absent') return { kind: 'unavailable', reason: gate.reason };
  const image = env.SVC_REDIS_IMAGE?.trim() || defaultRedisImage;

  try {
    if (!(await engineHasImage(image, gate.where))) {
      return {
        kind: 'unavailable',
        reason: `image ${image} is not on the engine at ${gate.where} (build it: container-engine.sh redis-image)`,
      };
    }
  } catch (error) {
    return { kind: 'unavailable', reason: `no container engine answers at ${gate.where}: ${oneLine(error)}` };
  }

  let container: StartedTestContainer;
  try {
    container = await new GenericContainer(image)
      .withExposedPorts(6379)
      .withWaitStrategy(Wait.forLogMessage(/Ready to accept connections/))
      .withStartupTimeout(startupTimeoutMs)
      .start();
  } catch (error) {
    return { kind: 'unavailable', reason: `container ${image} did not start: ${oneLine(error)}` };
  }

  const url = `redis://${container.getHost()}:${container.getMappedPort(6379)}`;
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= container.stop({ timeout: 1_000 }).then(() => undefined);
    return stopping;
  };
  try {
    // The log line says Redis listens inside; the published port may still need a moment.
    await waitForRedis(url, 10_000);
  } catch (error) {
    await stop();
    return { kind: 'unavailable', reason: `container ${image} does not answer at ${url}: ${oneLine(error)}` };
  }
  return { kind: 'started', backing: { url, origin: 'container', stop } };
}
