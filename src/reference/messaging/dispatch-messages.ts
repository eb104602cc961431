/** What the API thread and the delivery thread (dispatch-worker.ts) tell each other. */
import type { DialectName } from '../../target/dialects.ts';
import type { RetryBackoff } from './backoff.ts';
import type { SigningKeys } from './signing-keys.ts';

/** How the delivery thread starts: everything it builds its own parts from. */
export interface DispatchWorkerInput {
  readonly redisUrl: string;
  /** The signature's `iss`. */
  readonly issuer: string;
  readonly dialect: DialectName;
  /** The messaging fault switches turned on. */
  readonly faults: readonly string[];
  readonly backoff: RetryBackoff;
}

export type ToDispatchWorker =
  | { readonly type: 'poke'; readonly pumpQueues: boolean }
  | { readonly type: 'keys'; readonly keys: SigningKeys }
  | { readonly type: 'stop' };

export type FromDispatchWorker =
  | { readonly type: 'started' }
  | { readonly type: 'stopped' }
  | { readonly type: 'failed'; readonly message: string };
