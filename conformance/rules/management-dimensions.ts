/**
 * Area C: the dimensions each rule speaks about, and where it does not apply (with why). The cells
 * are the cross product of each grid; cases declare the cells they check (`covers`), and
 * `svc-harness rules --coverage` prints the matrix. A rule left out here is one cell.
 */
import type { RuleDimensions } from '../../src/suite-kit/suite-api.ts';
import { notApplicable as na } from './dimensions.ts';

export const managementRuleDimensions: readonly RuleDimensions[] = [
  // Credentials on every route: the target's, none, wrong and malformed Basic.
  {
    rule: 'C.auth.basic',
    grids: [['management-route', 'management-credentials']],
    notApplicable: [
      na(
        { 'management-route': ['create-index', 'get-index'], 'management-credentials': ['standard'] },
        'the search cases’ means: a refusal there cannot be told from another failure (C.create.ok-200, C.get.same-object judge)',
      ),
    ],
  },
  // The id a read names: a created index's, or one no index has (issue 35, item 5).
  { rule: 'C.get.same-object', grids: [['resource-id']] },
  // The field tables, field by field.
  { rule: 'C.account.fields', grids: [['account-field']] },
  { rule: 'C.index.fields', grids: [['index-field']] },
];
