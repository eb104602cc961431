/** The closest known name to a mistyped one, as git suggests it: flags, commands, scenarios, config and target keys. */
import { closest, distance } from 'fastest-levenshtein';

/** Close enough to be the name meant: within a third of its length in edits, at least 2 (as git suggests). */
export function near(given: string, name: string): boolean {
  return distance(given, name) <= Math.max(2, Math.floor(given.length / 3));
}

/** `; did you mean load?` when a name is close enough, else nothing. */
export function didYouMean(given: string, names: readonly string[]): string {
  if (names.length === 0) return '';
  const best = closest(given, [...names]);
  return near(given, best) ? `; did you mean ${best}?` : '';
}
