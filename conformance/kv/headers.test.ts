import { registerCases } from '../../src/conformance/register-cases.ts';
import { cases } from './headers.cases.ts';

registerCases('kv', cases);
