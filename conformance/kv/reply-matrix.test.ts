import { registerCases } from '../../src/engines/conformance/register-cases.ts';
import { cases } from './reply-matrix.cases.ts';

registerCases('kv', cases);
