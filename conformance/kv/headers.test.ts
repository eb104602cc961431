import { registerCases } from '../../src/engines/conformance/register-cases.ts';
import { cases } from './headers.cases.ts';

registerCases('kv', cases);
