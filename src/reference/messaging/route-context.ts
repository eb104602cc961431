/** What area A's route groups are registered with. */

import type { Dialect } from '../../target/dialects.ts';
import type { AccountStore } from '../account/messaging-account.ts';
import type { Dispatcher } from './dispatcher.ts';
import type { MessageStore } from './message-store.ts';
import type { MessagingFaultCheck } from './messaging-faults.ts';
import type { MessagingSilenceCheck } from './messaging-silences.ts';
import type { NotifyFailures } from './notify-failures.ts';
import type { RateLimit } from './rate-limit.ts';
import type { SigningKeyStore } from './signing-keys.ts';
import type { TopicStore } from './topic-store.ts';
import type { WaiterStore } from './waiters.ts';
import type { WriteBehind } from './write-behind.ts';

export interface MessagingRouteOptions {
  readonly store: MessageStore;
  /** URL groups (topics). */
  readonly topics: TopicStore;
  readonly waiters: WaiterStore;
  readonly keys: SigningKeyStore;
  readonly account: AccountStore;
  readonly dispatcher: Dispatcher;
  readonly dialect: Dialect;
  readonly fault: MessagingFaultCheck;
  /** The silence switches on: another legal choice where the spec is silent. */
  readonly silence: MessagingSilenceCheck;
  /** Shared by every region's server: the plan's rate is the account's. */
  readonly rateLimit: RateLimit;
  /** Delay of every answer of this region's server (`--region-latency`). */
  readonly latencyMs: number;
  /** Whether this server is the default region's (the target's `url`), not one of the others. */
  readonly mainRegion: boolean;
  /** Event ids whose next notify fails inside the service (armed through the admin hook). */
  readonly notifyFailures: NotifyFailures;
  /** The `publish-write-behind` fault's buffer: publishes acknowledged before they are stored. */
  readonly writeBehind?: WriteBehind;
}

/** What the route groups share: the area's parts, the version prefix and the dialect's header prefix. */
export interface RouteContext {
  readonly options: MessagingRouteOptions;
  /** `/v2` (or `/v1` under the `v1-prefix` fault). */
  readonly v: string;
  /** The dialect's vendor header prefix, `Svc-` or `Upstash-`. */
  readonly p: string;
}
