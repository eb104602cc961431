/** The load settings' flags, read the same way by `load`, `run` and `k6 manifest`. */
import type { ParsedValues } from './parsed-values.ts';

const settingFlags = [
  'engine',
  'segments',
  'model',
  'rate',
  'duration',
  'ramp',
  'connections',
  'workers',
  'batch',
  'value-size',
  'seed',
  'timeout',
  'warmup',
];

/** The string flags parseLoadSettings reads. */
export function settingValues(values: ParsedValues): Record<string, string | undefined> {
  return Object.fromEntries(
    settingFlags.map((flag) => [flag, typeof values[flag] === 'string' ? (values[flag] as string) : undefined]),
  );
}

/** The `--param NAME=NUMBER` texts (repeatable), as given: parseLoadSettings's second argument. */
export function paramTexts(values: ParsedValues): string[] {
  const given = values.param;
  return Array.isArray(given) ? given.filter((item): item is string => typeof item === 'string') : [];
}
