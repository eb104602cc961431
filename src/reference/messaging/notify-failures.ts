/**
 * Notifies armed to fail inside the service (spec "Errors": notify 500, Internal server error). A
 * conforming service has no such failure on demand, so the admin hook arms one per event id: only
 * the next notify of that id fails, and another case's notifies never do.
 */
export class NotifyFailures {
  readonly #armed = new Set<string>();

  arm(eventId: string): void {
    this.#armed.add(eventId);
  }

  /** True once for an armed event id (the failure is used up). */
  take(eventId: string): boolean {
    return this.#armed.delete(eventId);
  }
}

/** The failure the notify route throws: the error handler answers it as a 500. */
export class InternalNotifyFailure extends Error {
  constructor(eventId: string) {
    super(`notify of ${JSON.stringify(eventId)} failed inside the service (armed through the admin hook)`);
  }
}
