/**
 * Every operator: the fixed ones and the families whose parameter (a header, a field, a depth) comes
 * from the exchanges of a clean run. `operatorById` rebuilds any of them from its id.
 */
import type { Exchange } from '../exchange.ts';
import type { Operator, OperatorFamily } from '../operator.ts';
import { authOperators } from './auth.ts';
import { deliveryOperators } from './delivery.ts';
import { contentTypeOperators, headerDropped, headerRenamed, requestHeaderIgnored } from './headers.ts';
import { jsonFamilies, jsonOperators } from './json.ts';
import { outcomeOperators } from './outcome.ts';
import { sseOperators } from './sse.ts';
import { statusOperators } from './status.ts';

export const fixedOperators: readonly Operator[] = [
  ...statusOperators,
  ...outcomeOperators,
  ...contentTypeOperators,
  ...jsonOperators,
  ...sseOperators,
  ...authOperators,
  ...deliveryOperators,
];

export const operatorFamilies: readonly OperatorFamily[] = [
  headerDropped,
  headerRenamed,
  requestHeaderIgnored,
  ...jsonFamilies,
];

/** The operators worth trying on a class: the fixed ones and each family over the parameters seen. */
export function operatorsFor(exchanges: readonly Exchange[]): Operator[] {
  const made: Operator[] = [...fixedOperators];
  for (const family of operatorFamilies) {
    const params = new Set(exchanges.flatMap((exchange) => family.params(exchange)));
    for (const param of [...params].sort()) made.push(family.make(param));
  }
  return made;
}

export function operatorById(id: string): Operator | undefined {
  const fixed = fixedOperators.find((operator) => operator.id === id);
  if (fixed) return fixed;
  for (const family of operatorFamilies) {
    for (const separator of [':', '@']) {
      if (id.startsWith(`${family.base}${separator}`)) return family.make(id.slice(family.base.length + 1));
    }
  }
  return undefined;
}
