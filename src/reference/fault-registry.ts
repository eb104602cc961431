/**
 * Fault switches: each breaks exactly one rule of the spec, so the conformance suites can prove they
 * catch it. Silence switches are their mirror: each makes the reference take another *legal* choice
 * where the spec is silent (a status not shown, an optional header ignored, another error text), so the
 * suites can prove that no case fails an implementation choosing otherwise. Both exist only to
 * validate the suites; only `--fault NAME` and `--silence NAME` turn one on.
 */
import { harnessError } from '../shared/errors.ts';
import type { TargetArea } from '../target/target.ts';

export interface FaultSwitch {
  /** kebab-case name given to `--fault`. */
  readonly name: string;
  readonly area: TargetArea;
  /** The rule id (from conformance/rules/) this switch breaks. */
  readonly rule: string;
  /** One sentence: what the service does wrong with the switch on. */
  readonly description: string;
  /**
   * Who proves the switch is caught: the conformance suites (the default: a case of the rule fails),
   * or the soak's checker, for a wrong that only a fault shows (a kill losing acknowledged messages);
   * the self-validation suites leave such a switch to test/cli/soak.test.ts, which runs each.
   */
  readonly judgedBy?: 'soak';
}

/**
 * A legal choice where the spec is silent, other than the reference's own. With it on, every case must
 * still pass, observe, or skip saying which capability the choice removed: never fail.
 */
export interface SilenceSwitch {
  /** kebab-case name given to `--silence`. */
  readonly name: string;
  readonly area: TargetArea;
  /**
   * Where the spec leaves the choice open: an observed rule id (`A.publish.response-shape`) or a place
   * of conformance/rules/silences.ts (`notes: A.publish-options`), or several where one choice speaks
   * of several places.
   */
  readonly silence: string | readonly string[];
  /** One sentence: the other legal choice the service makes with the switch on. */
  readonly description: string;
}

/** Identity function for types, so each area declares its silence switches as a literal table. */
export function defineSilences<const T extends readonly SilenceSwitch[]>(silences: T): T {
  return silences;
}

/** Identity function for types, so each area declares its switches as a literal table. */
export function defineFaults<const T extends readonly FaultSwitch[]>(faults: T): T {
  return faults;
}

/** The switches of one kind turned on for one running service. */
export class FaultSet {
  readonly #on: ReadonlySet<string>;

  constructor(
    names: Iterable<string>,
    known: readonly { readonly name: string }[],
    kind: 'fault' | 'silence' = 'fault',
  ) {
    const knownNames = new Set(known.map((fault) => fault.name));
    for (const name of names) {
      if (!knownNames.has(name)) {
        const [what, list] = kind === 'fault' ? ['fault', '--list-faults'] : ['silence switch', '--list-silences'];
        throw harnessError('SVC_USAGE', `unknown ${what} "${name}" (svc-harness serve ${list} lists them)`);
      }
    }
    this.#on = new Set(names);
  }

  has(name: string): boolean {
    return this.#on.has(name);
  }

  get names(): readonly string[] {
    return [...this.#on];
  }
}
