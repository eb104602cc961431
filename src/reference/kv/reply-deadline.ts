/**
 * A deadline for Redis's replies to one request. The write deadline (write-deadline.ts) only covers
 * commands not yet written; a Redis that has them but stops answering (paused, swapped out, behind a
 * network partition) keeps its TCP connection open, and without this the request would wait forever.
 */

/**
 * Runs `work`, or answers `expired()` once `deadlineMs` passes without it settling. Commands already
 * written stay in flight on their connection: their late replies arrive in order and are dropped.
 */
export async function withReplyDeadline<T>(deadlineMs: number, work: () => Promise<T>, expired: () => T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(expired()), deadlineMs);
    // Like the write deadline: a pending deadline never keeps the process alive.
    timer.unref();
  });
  try {
    return await Promise.race([work(), deadline]);
  } finally {
    clearTimeout(timer);
  }
}
