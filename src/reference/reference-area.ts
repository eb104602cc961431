/**
 * One area of the reference service, behind one small interface: its fault switches, and a start
 * that gives its routes, its admin routes, its entry in the target file and a clean close. The
 * service (reference-service.ts) starts each area of `referenceAreas` the same way, on its own port.
 */
import type { FastifyInstance } from 'fastify';
import type { Dialect } from '../target/dialects.ts';
import type { Target, TargetArea } from '../target/target.ts';
import type { FaultSet, FaultSwitch, SilenceSwitch } from './fault-registry.ts';
import type { ReferenceOptions } from './reference-options.ts';

/** What every area is started with. */
export interface AreaSettings {
  readonly redisUrl: string;
  /** The switches turned on, already checked against every area's names. */
  readonly faults: FaultSet;
  /** The silence switches turned on: legal choices other than the reference's own where the spec is silent. */
  readonly silences: FaultSet;
  readonly dialect: Dialect;
  /** The service's options; each area reads what it needs. */
  readonly options: ReferenceOptions;
}

/** The routes an area adds to a fastify server (its own, or the admin endpoint). */
export type AreaRoutes = (app: FastifyInstance) => Promise<void>;

export interface StartedArea {
  /** The routes of the area's own server. */
  readonly routes: AreaRoutes;
  /** How the area's server is built: `rawPaths` routes every URL to `/` (the area parses it itself). */
  readonly server: { readonly rawPaths: boolean; readonly bodyLimit: number };
  /**
   * More servers of the same area, each on its own port: area A's regions (`--regions`), which
   * share the area's state and differ in base URL and latency.
   */
  readonly extraServers?: readonly { readonly name: string; readonly routes: AreaRoutes }[];
  /** Operations on the admin endpoint for what the spec shows no API for. */
  readonly adminRoutes?: AreaRoutes;
  /** The area's entry in the target, at `url` (and its extra servers' URLs); read anew each time (tokens change). */
  targetEntry(url: string, extraUrls: Readonly<Record<string, string>>): NonNullable<Target[TargetArea]>;
  /** Lines for `serve` after the area's URL (credentials it prints). */
  describe(): readonly (readonly [string, string])[];
  close(): Promise<void>;
}

export interface ReferenceArea {
  readonly name: TargetArea;
  /** How `serve` names it: `key-value REST (area B)`. */
  readonly title: string;
  readonly faults: readonly FaultSwitch[];
  readonly silences: readonly SilenceSwitch[];
  start(settings: AreaSettings): Promise<StartedArea>;
}
