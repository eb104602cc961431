import { registerCases } from '../../src/engines/conformance/register-cases.ts';
import { cases } from './multi-exec.cases.ts';

registerCases('kv', cases);
