import { registerCases } from '../../src/conformance/register-cases.ts';
import { cases } from './auth.cases.ts';

registerCases('kv', cases);
