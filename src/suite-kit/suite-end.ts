/**
 * What the suites share across cases and close once every case has run (the messaging cases' sink,
 * started on first use). A suite registers its closer when it starts the thing; the runner's entry
 * (src/engines/conformance/register-cases.ts) runs them after the last case. Kept here, below both,
 * so the runner needs no import of a suite's support module and the suites none of the runner.
 */

const closers = new Set<() => Promise<void> | void>();

/** Runs `close` once every case of the run has ended; the same function registered twice runs once. */
export function onSuitesEnd(close: () => Promise<void> | void): void {
  closers.add(close);
}

/** Runs and forgets every closer registered so far, one after another, in the order registered. */
export async function endSuites(): Promise<void> {
  const pending = [...closers];
  closers.clear();
  for (const close of pending) await close();
}
