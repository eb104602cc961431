/**
 * Fault switches: each breaks exactly one rule of the spec, so the conformance suites can prove they
 * catch it. They exist only to validate the suites; only `--fault NAME` turns one on.
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
}

/** Identity function for types, so each area declares its switches as a literal table. */
export function defineFaults<const T extends readonly FaultSwitch[]>(faults: T): T {
  return faults;
}

/** The switches turned on for one running service. */
export class FaultSet {
  readonly #on: ReadonlySet<string>;

  constructor(names: Iterable<string>, known: readonly FaultSwitch[]) {
    const knownNames = new Set(known.map((fault) => fault.name));
    for (const name of names) {
      if (!knownNames.has(name)) {
        throw harnessError('SVC_USAGE', `unknown fault "${name}" (svc-harness serve --list-faults lists them)`);
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
