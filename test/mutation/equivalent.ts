/**
 * Survivors that are not bugs: a mutant id (`<operator id> @ <route class>`) → one line saying why no
 * conforming receiver or client could tell, or why the spec leaves it open ("not shown"). A survivor
 * listed here counts as equivalent, not survived. Every other survivor is a gap of the suites.
 */
export const equivalentMutants: Readonly<Record<string, string>> = {};

export function equivalenceOf(id: string): string | undefined {
  return equivalentMutants[id];
}
