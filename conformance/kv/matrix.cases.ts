/**
 * The combination matrix (issue 3): request form × Svc-Encoding × Svc-Response-Format × credentials,
 * one case per request form, each cell's expected answer from the spec-written oracle.
 */
import { defineCases } from '../../src/suite-kit/suite-api.ts';
import { type Requirements, withRequirements } from '../support/kv-capabilities.ts';
import { requestForms } from '../support/kv-oracle.ts';
import { matrixFormCovers, matrixFormRules, runMatrixForm } from '../support/matrix-runner.ts';

const requirements: Requirements = {
  // Each form's plainest cell is its positive (runMatrixForm); the path forms carry the key with %3A.
  'kv.matrix.get-path': ['root-form', 'percent-decoding'],
  'kv.matrix.head-path': ['root-form', 'percent-decoding'],
  'kv.matrix.post-path': ['root-form', 'percent-decoding'],
  'kv.matrix.put-path': ['root-form', 'percent-decoding'],
  'kv.matrix.post-body': ['root-form', 'percent-decoding'],
  '*': ['root-form'],
};

export const cases = withRequirements(
  requirements,
  defineCases(
    requestForms.map((form) => ({
      id: `kv.matrix.${form}`,
      rules: matrixFormRules(form),
      covers: matrixFormCovers(form),
      title: `Combination matrix: ${form} × encoding × response format × credentials`,
      expect:
        'Every cell answers as the oracle derives from the spec: the result (base64, JSON or RESP2), 400 for a bad header, 401 without a valid token.',
      run: (ctx) => runMatrixForm(ctx, form),
    })),
  ),
);
