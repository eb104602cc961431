/**
 * One deadline for any promise, shared by the conformance cleanups and the reference's Redis start-up
 * (engine probe, PING): a promise that never settles must not hang the harness (standards: nothing hangs).
 */

/**
 * Resolves or rejects with the promise, or rejects with `onTimeout()` (else an Error of `message`) once
 * `ms` pass. The timer is cleared when the promise settles, so it never holds the process open. The
 * promise itself is not cancelled: a caller with something to tear down does it after the rejection.
 */
export function withTimeout<T>(promise: Promise<T>, ms: number, message: string, onTimeout?: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout ? onTimeout() : new Error(message)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
