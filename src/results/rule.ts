/** A rule of the spec, with a stable id. The catalog lives in conformance/rules/, one file per area. */
import type { TargetArea } from '../target/target.ts';

/** MUST: the spec states it; a failing case fails the gate. OBSERVE: the spec says "not shown"; cases only record. */
export type RuleLevel = 'MUST' | 'OBSERVE';

export interface Rule {
  /** Stable dotted id, area letter first: `B.multi-exec.discard.unsupported-command`. */
  readonly id: string;
  readonly area: TargetArea;
  readonly level: RuleLevel;
  /**
   * The spec heading the rule comes from, as the path of headings below the title, joined by ` > `,
   * e.g. `Endpoints > Area B, key-value REST ({kv_url})`. A test checks it names a real heading.
   */
  readonly section: string;
  /** One sentence: what the spec says. */
  readonly text: string;
}

export interface RuleCatalog {
  /** Every rule in file order, duplicates included (a test rejects them). */
  readonly rules: readonly Rule[];
  /** The catalog files read, relative to the repository: `conformance/rules/kv-rules.ts`. */
  readonly files: readonly string[];
  get(id: string): Rule | undefined;
  has(id: string): boolean;
  byArea(area: TargetArea): readonly Rule[];
}

/** Builds a catalog from rules already in memory (the loader and tests use it). */
export function createRuleCatalog(rules: readonly Rule[], files: readonly string[] = []): RuleCatalog {
  const byId = new Map<string, Rule>();
  for (const rule of rules) if (!byId.has(rule.id)) byId.set(rule.id, rule);
  return {
    rules,
    files,
    get: (id) => byId.get(id),
    has: (id) => byId.has(id),
    byArea: (area) => rules.filter((rule) => rule.area === area),
  };
}

/** Which cases cover a rule: the catalog joined with the suites' cases (`svc-harness rules`). */
export interface RuleCoverage {
  readonly rule: Rule;
  /** Ids of the cases naming the rule, sorted. */
  readonly cases: readonly string[];
}
