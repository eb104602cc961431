/**
 * `soak --image`: the implementation's container as what the process faults act on (issue 39), through
 * the engine testcontainers reaches (Podman's Docker-compatible API here). A kill is the engine's
 * SIGKILL and a start of the same container; a graceful restart its stop and start; a pause its pause
 * (the cgroup freezer: every process of the container stops at once) and unpause. The ports are
 * published on fixed host ports (image-target.ts), so the container answers at the same URLs after
 * each start. Ready means the probe answered: the template's `wait.http` port and path (any answer
 * below 500), else a TCP connection to its first port. An exit the soak did not cause is not watched
 * here (the engine's events would be): a container that died on its own fails the next probe and the
 * fault that finds it says so.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ImageTarget } from '../image/image-target.ts';
import {
  answers,
  type FaultableProcess,
  type ProcessFaultTiming,
  timedPause,
  type UnexpectedExit,
} from './managed-process.ts';

const probeEveryMs = 50;
/** How long a container may take to answer again after a start. */
const readyTimeoutMs = 60_000;
/** How long the engine waits for a graceful stop before it kills. */
const stopTimeoutS = 10;

/** The dockerode container the engine's client hands back (only what a fault needs). */
interface EngineContainer {
  kill(options: { signal: string }): Promise<unknown>;
  start(): Promise<unknown>;
  stop(options: { t: number }): Promise<unknown>;
  pause(): Promise<unknown>;
  unpause(): Promise<unknown>;
  inspect(): Promise<{ State?: { Pid?: number } }>;
}

export class ContainerProcess implements FaultableProcess {
  readonly #image: ImageTarget;
  readonly #engine: EngineContainer;
  readonly #ready: ProbeSpec;
  #pid: number | undefined;
  #isReady = true;
  readonly unexpectedExits: readonly UnexpectedExit[] = [];

  private constructor(image: ImageTarget, engine: EngineContainer, ready: ProbeSpec) {
    this.#image = image;
    this.#engine = engine;
    this.#ready = ready;
  }

  /** Over a container testcontainers started (and waited for): its engine handle and first pid. */
  static async of(image: ImageTarget): Promise<ContainerProcess> {
    const { getContainerRuntimeClient } = await import('testcontainers');
    const client = await getContainerRuntimeClient();
    const engine = client.container.getById(image.container.getId()) as unknown as EngineContainer;
    const wait = image.template.wait?.http;
    const first = image.template.ports[0] as number;
    const ready: ProbeSpec =
      wait !== undefined
        ? { url: `http://${image.container.getHost()}:${image.mappedPort(wait.port)}${wait.path ?? '/'}` }
        : { port: image.mappedPort(first), host: image.container.getHost() };
    const made = new ContainerProcess(image, engine, ready);
    await made.#readPid();
    return made;
  }

  get pid(): number | undefined {
    return this.#pid;
  }

  get ready(): boolean {
    return this.#isReady;
  }

  async #readPid(): Promise<void> {
    const pid = (await this.#engine.inspect()).State?.Pid;
    this.#pid = pid !== undefined && pid > 0 ? pid : undefined;
  }

  async #untilReady(): Promise<void> {
    const deadline = performance.now() + readyTimeoutMs;
    while (!(await answers(this.#ready))) {
      if (performance.now() > deadline)
        throw new Error(`the container of ${this.#image.image} did not answer within ${readyTimeoutMs / 1000} s`);
      await sleep(probeEveryMs);
    }
    await this.#readPid();
    this.#isReady = true;
  }

  async #replace(action: 'kill' | 'restart'): Promise<ProcessFaultTiming> {
    const startedAt = performance.now();
    const pidBefore = this.#pid;
    this.#isReady = false;
    if (action === 'kill') await this.#engine.kill({ signal: 'SIGKILL' });
    else await this.#engine.stop({ t: stopTimeoutS });
    const healedAt = performance.now();
    await this.#engine.start();
    await this.#untilReady();
    return { action, startedAt, healedAt, readyAt: performance.now(), pidBefore, pidAfter: this.#pid };
  }

  kill(): Promise<ProcessFaultTiming> {
    return this.#replace('kill');
  }

  restart(): Promise<ProcessFaultTiming> {
    return this.#replace('restart');
  }

  pause(windowMs: number, signal?: AbortSignal): Promise<ProcessFaultTiming> {
    return timedPause(
      this.#pid,
      windowMs,
      signal,
      async () => {
        await this.#engine.pause();
      },
      async () => {
        await this.#engine.unpause();
      },
    );
  }

  /** The container stopped and removed (unpaused first by the engine's own stop). Never throws. */
  async stop(): Promise<void> {
    this.#isReady = false;
    await this.#engine.unpause().catch(() => undefined);
    await this.#image.stop();
  }
}

type ProbeSpec = Parameters<typeof answers>[0];
