/**
 * The areas of the service as the target model knows them: their names, how a command line names
 * them, what else a case may need of a target (capabilities), and the one request that shows an
 * area answers at all. Engines stay generic: they ask here instead of switching on an area.
 */
import { harnessError } from '../shared/errors.ts';
import type { Target, TargetArea } from './target.ts';

/** Every area, in the order runs and reports list them. */
export const targetAreas: readonly TargetArea[] = ['kv', 'messaging', 'management'];

/** The areas a target has, in `targetAreas` order. */
export function areasOf(target: Target): TargetArea[] {
  return targetAreas.filter((area) => target[area] !== undefined);
}

/** `--area kv,messaging` → ['kv', 'messaging']; an unknown area is one usage line. */
export function parseAreaList<const T extends string>(
  command: string,
  raw: string | undefined,
  known: readonly T[],
): T[] | undefined {
  if (raw === undefined) return undefined;
  const areas = raw
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.length > 0);
  if (areas.length === 0) throw harnessError('SVC_USAGE', `${command}: --area needs at least one area`);
  checkAreas(command, areas, known);
  return [...new Set(areas)];
}

/** Every area is one of `known`; the first that is not is one usage line (the CLI and the engines' options). */
export function checkAreas<const T extends string>(
  command: string,
  areas: readonly string[],
  known: readonly T[],
): asserts areas is readonly T[] {
  for (const area of areas) {
    if (!(known as readonly string[]).includes(area)) {
      throw harnessError('SVC_USAGE', `${command}: unknown area "${area}" (areas: ${known.join(', ')})`);
    }
  }
}

/** What a case may need of a target beyond the area itself; without it the case is skipped with a reason. */
export type Capability = 'kv.readOnlyToken' | 'admin' | 'messaging.adapter';

const capabilities: Readonly<Record<Capability, { has(target: Target): boolean; missing: string }>> = {
  'kv.readOnlyToken': {
    has: (target) => Boolean(target.kv?.readOnlyToken),
    missing: 'the target has no read-only token (kv.readOnlyToken).',
  },
  'messaging.adapter': {
    has: (target) => target.messaging?.adapter !== undefined,
    missing:
      'the target names no adapter for operations the spec does not document (messaging.adapter: "real-world" or a module path).',
  },
  admin: {
    has: (target) => target.admin !== undefined,
    missing: 'the target has no admin hook (admin), so this cannot be arranged.',
  },
};

/** The reason a target cannot serve a case's needs, or undefined when it can. */
export function missingCapability(target: Target, needs: readonly Capability[] = []): string | undefined {
  for (const need of needs) if (!capabilities[need].has(target)) return capabilities[need].missing;
  return undefined;
}

export interface ProbeRequest {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * The cheapest request that shows an area of the target speaks HTTP: area B's authenticated PING,
 * the base URL of the others, with the area's own headers. Undefined when the target lacks the area.
 */
export function probeRequest(target: Target, area: TargetArea): ProbeRequest | undefined {
  switch (area) {
    case 'kv':
      return (
        target.kv && {
          url: `${target.kv.url.replace(/\/+$/, '')}/ping`,
          headers: { ...target.kv.headers, authorization: `Bearer ${target.kv.token}` },
        }
      );
    case 'messaging':
      return target.messaging && { url: target.messaging.url, headers: { ...target.messaging.headers } };
    case 'management':
      return target.management && { url: target.management.url, headers: { ...target.management.headers } };
  }
}
