import { registerCases } from '../../src/engines/conformance/register-cases.ts';
import { cases } from './endpoint-auth.cases.ts';

registerCases('kv', cases);
