/**
 * The `--rules` / SVC_RULES filter: one glob or several separated by commas (`B.auth.*,B.pipeline.*`).
 * Rule ids hold no `/`, so node:path's glob matcher lets `*` span the dots of an id.
 */
import { matchesGlob } from 'node:path';

/** True when a case with these rule ids runs under the filter; no filter runs everything. */
export type RuleFilter = (ruleIds: readonly string[]) => boolean;

export function splitRuleGlobs(glob: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of glob) {
    if (char === '{') depth++;
    if (char === '}') depth = Math.max(0, depth - 1);
    if (char === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else current += char;
  }
  parts.push(current);
  return parts.map((part) => part.trim()).filter((part) => part.length > 0);
}

export function ruleFilter(glob: string | undefined): RuleFilter {
  const patterns = glob === undefined ? [] : splitRuleGlobs(glob);
  if (patterns.length === 0) return () => true;
  return (ruleIds) => ruleIds.some((id) => patterns.some((pattern) => matchesGlob(id, pattern)));
}

/** True when the glob matches at least one of the given rule ids (to reject a filter that selects nothing). */
export function globMatchesAny(glob: string, ruleIds: readonly string[]): boolean {
  const filter = ruleFilter(glob);
  return ruleIds.some((id) => filter([id]));
}
