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
