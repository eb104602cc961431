import { registerCases } from '../../src/engines/conformance/register-cases.ts';
import { cases } from './matrix.cases.ts';

registerCases('kv', cases);
