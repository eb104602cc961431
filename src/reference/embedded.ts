/**
 * The reference's one door for the run engines: check fault names before a run, and start the
 * reference as the embedded default target for one run (always stopped by the caller). Engines
 * import this module and nothing else of src/reference (the linter holds them to it).
 */
import { messagingRegions } from '../target/messaging-regions.ts';
import type { Target, TargetArea } from '../target/target.ts';
import { FaultSet } from './fault-registry.ts';
import { allFaults, allSilences } from './reference-areas.ts';

/** The reference's own search for redis-server (an executable file on PATH), for an engine that starts one beside it (the soak). */
export { findRedisServer } from './redis/redis-server-process.ts';

export interface EmbeddedReference {
  readonly target: Target;
  /** Secrets beyond the target's own (a password in the Redis URL), for redaction. */
  readonly secrets: readonly string[];
  stop(): Promise<void>;
}

/** Throws the one usage line the reference itself gives for an unknown fault name. */
export function checkFaults(names: readonly string[]): void {
  new FaultSet(names, allFaults);
}

/** Throws the one usage line the reference itself gives for an unknown silence switch. */
export function checkSilences(names: readonly string[]): void {
  new FaultSet(names, allSilences, 'silence');
}

/** Starts the reference with `areas` only (a conformance run of one area needs no other). @default every area */
export async function startEmbeddedReference(
  faults: readonly string[],
  areas?: readonly TargetArea[],
  silences: readonly string[] = [],
): Promise<EmbeddedReference> {
  // Loaded on use: a run against a target file never loads the reference's servers and Redis client.
  const { startReference } = await import('./reference-service.ts');
  // Retries after 10 ms, doubling: the real service's e^(2.5·n) s would hold each retrying case for seconds.
  const reference = await startReference({
    faults,
    silences,
    // Both regions, so the suite's regional case runs against the embedded reference too.
    messaging: { retryBackoff: { kind: 'base', ms: 10 }, regions: [...messagingRegions] },
    ...(areas !== undefined && areas.length > 0 && { areas }),
  });
  const password = safePassword(reference.redis.url);
  return {
    target: { ...reference.target, name: reference.target.name || 'reference' },
    secrets: password ? [password] : [],
    stop: () => reference.stop(),
  };
}

function safePassword(url: string): string | undefined {
  try {
    const password = decodeURIComponent(new URL(url).password);
    return password.length > 0 ? password : undefined;
  } catch {
    return undefined;
  }
}
