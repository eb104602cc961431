import { registerCases } from '../../src/conformance/register-cases.ts';
import { cases } from './limits.cases.ts';

registerCases('kv', cases);
