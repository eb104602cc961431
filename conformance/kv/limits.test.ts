import { registerCases } from '../../src/engines/conformance/register-cases.ts';
import { cases } from './limits.cases.ts';

registerCases('kv', cases);
