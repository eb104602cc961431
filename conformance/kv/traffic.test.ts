import { registerCases } from '../../src/engines/conformance/register-cases.ts';
import { cases } from './traffic.cases.ts';

registerCases('kv', cases);
