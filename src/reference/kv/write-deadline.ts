/**
 * A deadline for getting commands onto the Redis connection, shared by the commands of one request.
 *
 * @redis/client 6 gives every command its own 5 s `AbortSignal.timeout` by default. That deadline only
 * covers the wait before the command is written (the client drops it once written), yet each one is a
 * timer with a WeakRef and a FinalizationRegistry entry that lives the full 5 s. At 100k commands/s
 * that kept ~500k of them alive: the live heap passed 100 MB within 3 s, GC took 25-30% of the CPU,
 * and pipelines of 100 ran slower than pipelines of 10 with a p99 near 1 s (bench/kv-engine-stages.ts).
 * Commands sent together share one plain timer here instead, cleared as soon as they settle; the
 * client still drops any command not written in time, as its own timeout did. One abort drops every
 * command still unwritten at once, so what is dropped is always the tail of what was sent together.
 */
import { AbortError } from '@redis/client';

/** The client's default command timeout, kept as the default write deadline. */
export const defaultWriteDeadlineMs = 5_000;

/**
 * Command options that hand the deadline to the client: `timeout: 0` turns off its own timer, and a
 * command still unwritten when `abortSignal` aborts is dropped and rejected with AbortError.
 */
export interface WriteDeadline {
  readonly timeout: 0;
  readonly abortSignal: AbortSignal;
}

/**
 * The deadline of commands sent together, as each command's options. One timer aborts them all at
 * once; their signals are many, each shared by at most `commandsPerSignal` commands: the client adds
 * an abort listener per command and removes it once written, and removing one from an AbortSignal
 * walks its list, so one signal for a 100,000-command pipeline made the request quadratic (minutes).
 */
export interface SharedWriteDeadline extends WriteDeadline {
  /** The options of the `index`-th command sent under this deadline. */
  forCommand(index: number): WriteDeadline;
}

/** Commands per AbortSignal: enough to keep signals few, few enough that a listener's removal is cheap. */
export const commandsPerSignal = 128;

/** Runs `send` with a deadline that passes after `deadlineMs`; its timer ends when `send` settles. */
export async function withWriteDeadline<T>(
  deadlineMs: number,
  send: (deadline: SharedWriteDeadline) => Promise<T>,
): Promise<T> {
  // Slot i holds the controller of commands i × commandsPerSignal and on, made when first asked for.
  const controllers: AbortController[] = [];
  const deadlineOf = (slot: number): WriteDeadline => {
    controllers[slot] ??= new AbortController();
    return { timeout: 0, abortSignal: controllers[slot].signal };
  };
  const first = deadlineOf(0);
  // One moment for all: the signals abort together, in slot order (the order the commands were sent),
  // so what is dropped is still the tail of what was sent together.
  const timer = setTimeout(() => {
    for (const controller of controllers) controller?.abort();
  }, deadlineMs);
  // Like the client's own timers: a pending deadline never keeps the process alive.
  timer.unref();
  try {
    return await send({ ...first, forCommand: (index) => deadlineOf(Math.floor(index / commandsPerSignal)) });
  } finally {
    clearTimeout(timer);
  }
}

/** The detail of a command dropped at the deadline (the client's own timeout error had none). */
export function missedWriteDeadline(error: unknown, deadlineMs: number): string | undefined {
  return error instanceof AbortError ? `not written to Redis within ${deadlineMs} ms` : undefined;
}
