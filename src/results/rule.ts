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

/**
 * Coverage by construction (issue 20). A dimension is something a rule speaks about (the endpoint, the
 * reply's shape, the credentials, a class of bytes…), with a closed list of values; the vocabulary is
 * conformance/rules/dimensions.ts. A rule names the grids of dimensions it applies over; a cell is the
 * rule and one point of one grid. Every cell is covered by a case that declares it, or carved out as
 * not applicable with a one-line reason.
 */
export interface Dimension {
  /** Kebab-case id: `byte-class`. */
  readonly id: string;
  readonly title: string;
  readonly values: readonly string[];
}

/** Dimension id → the values spanned; a dimension left out spans all its values. */
export type CellRegion = Readonly<Record<string, readonly string[]>>;

/** One point of a grid: dimension id → one value. */
export type CellPoint = Readonly<Record<string, string>>;

export interface NotApplicable {
  readonly where: CellRegion;
  /** One line: why the rule says nothing there (or what says it instead). */
  readonly reason: string;
}

export interface RuleDimensions {
  readonly rule: string;
  /**
   * Each grid is a list of dimension ids; the rule's cells are the union of the grids' cross products.
   * Grids of one rule share no dimension, so a region (which names dimensions) holds cells of one grid.
   */
  readonly grids: readonly (readonly string[])[];
  readonly notApplicable?: readonly NotApplicable[];
}

/** The cells of a rule a case checks: the region, within the grids whose dimensions it names. */
export interface CellCover {
  readonly rule: string;
  readonly where: CellRegion;
}

/** The dimension vocabulary and every rule's grids (areas add a `<area>-dimensions.ts` each). */
export interface DimensionCatalog {
  readonly dimensions: readonly Dimension[];
  readonly rules: readonly RuleDimensions[];
  /** The files read, relative to the repository. */
  readonly files: readonly string[];
}

/** One cell and how it is covered: by cases, or not applicable with a reason. */
export interface CellCoverage {
  readonly rule: Rule;
  /** Empty for a rule without dimensions: its one cell is covered by any case naming the rule. */
  readonly point: CellPoint;
  /** `B.encoding.base64 [container=reply reply-shape=string]`. */
  readonly key: string;
  /** Ids of the cases covering the cell, sorted. */
  readonly cases: readonly string[];
  readonly notApplicable?: string;
}

/**
 * A place where the spec is silent and a silence switch of the reference can take another legal
 * choice: an item of the silent notes (conformance/rules/silences.ts). The catalog's observed rules are
 * the other places; together they are the silence column of `rules --coverage`.
 */
export interface SilentPlace {
  /** `notes: B.error-texts`: the `notes:` prefix keeps these apart from rule ids. */
  readonly id: string;
  readonly area: TargetArea;
  /** One sentence: what the real-world service does there, which the spec does not fix. */
  readonly text: string;
  /** Why no switch exercises it (a duty of the harness, not a choice of the service). */
  readonly notApplicable?: string;
}

/** A switch as the silence column needs it: its name and the place it speaks of. */
export interface SilenceSwitchRef {
  readonly name: string;
  readonly silence: string | readonly string[];
}

/** The places a switch speaks of, one or several. */
export const placesOf = (item: SilenceSwitchRef): readonly string[] =>
  typeof item.silence === 'string' ? [item.silence] : item.silence;

/** One place of the silence column and how it is exercised: by switches, or not applicable with a reason. */
export interface SilenceCoverage {
  /** A rule id (an observed rule) or a `notes:` id. */
  readonly place: string;
  readonly area: TargetArea;
  readonly text: string;
  /** Names of the silence switches that take another legal choice there, sorted. */
  readonly switches: readonly string[];
  readonly notApplicable?: string;
}
