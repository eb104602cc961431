import { registerCases } from '../../src/conformance/register-cases.ts';
import { cases } from './matrix.cases.ts';

registerCases('kv', cases);
