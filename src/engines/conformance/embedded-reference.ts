/** The embedded default target: the reference service, started for one run and always stopped. */
import type { Target } from '../../target/target.ts';

export interface EmbeddedReference {
  readonly target: Target;
  /** Secrets beyond the target's own (a password in the Redis URL), for redaction. */
  readonly secrets: readonly string[];
  stop(): Promise<void>;
}

export async function startEmbeddedReference(faults: readonly string[]): Promise<EmbeddedReference> {
  const { startReference } = await import('../../reference/reference-service.ts');
  const reference = await startReference({ faults });
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
