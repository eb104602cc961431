import { registerCases } from '../../src/engines/conformance/register-cases.ts';
import { cases } from './properties.cases.ts';

registerCases('kv', cases);
