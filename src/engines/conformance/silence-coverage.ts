/**
 * The silence column of the coverage matrix (pure): every place where the spec is silent (each observed
 * rule of the catalog, each item of the silent notes) joined with the reference's silence switches. A
 * place is exercised when a switch names it, or not applicable with a one-line reason; the rest are
 * open, and `rules --coverage` fails on them as on an uncovered cell.
 */
import {
  placesOf,
  type Rule,
  type SilenceCoverage,
  type SilenceSwitchRef,
  type SilentPlace,
} from '../../results/rule.ts';
import type { TargetArea } from '../../target/target.ts';

export function silenceCoverage(
  rules: readonly Rule[],
  places: readonly SilentPlace[],
  switches: readonly SilenceSwitchRef[],
  areas?: readonly TargetArea[],
): SilenceCoverage[] {
  const byPlace = new Map<string, string[]>();
  for (const item of switches) {
    for (const place of placesOf(item)) byPlace.set(place, [...(byPlace.get(place) ?? []), item.name]);
  }
  // A place may name an observed rule to say why no switch exercises it (its reason, nothing else).
  const reasons = new Map(places.filter((place) => !isNote(place)).map((place) => [place.id, place.notApplicable]));
  const observed: SilentPlace[] = rules
    .filter((rule) => rule.level === 'OBSERVE')
    .map((rule) => {
      const reason = reasons.get(rule.id);
      return { id: rule.id, area: rule.area, text: rule.text, ...(reason !== undefined && { notApplicable: reason }) };
    });
  return [...observed, ...places.filter(isNote)]
    .filter((place) => areas === undefined || areas.includes(place.area))
    .map((place) => ({
      place: place.id,
      area: place.area,
      text: place.text,
      switches: [...(byPlace.get(place.id) ?? [])].sort(),
      ...(place.notApplicable !== undefined && { notApplicable: place.notApplicable }),
    }));
}

/** What is inconsistent: a switch naming no known place (a rule id or a `notes:` id), a place given twice. */
export function silenceProblems(
  rules: readonly Rule[],
  places: readonly SilentPlace[],
  switches: readonly SilenceSwitchRef[],
): string[] {
  const known = new Set([...rules.map((rule) => rule.id), ...places.map((place) => place.id)]);
  const problems = switches.flatMap((item) =>
    placesOf(item)
      .filter((place) => !known.has(place))
      .map(
        (place) =>
          `silence switch ${item.name} names "${place}", neither a rule nor a place of conformance/rules/silences.ts`,
      ),
  );
  const observed = new Set(rules.filter((rule) => rule.level === 'OBSERVE').map((rule) => rule.id));
  const seen = new Set<string>();
  for (const place of places) {
    if (!isNote(place) && !(observed.has(place.id) && place.notApplicable !== undefined)) {
      problems.push(
        `silent place "${place.id}" is neither "notes: …" nor an observed rule with a reason it is not applicable`,
      );
    }
    if (seen.has(place.id)) problems.push(`silent place "${place.id}" is given twice`);
    seen.add(place.id);
  }
  return problems;
}

/** An item of the silent notes, as against an observed rule named for its reason. */
const isNote = (place: SilentPlace) => place.id.startsWith('notes: ');
