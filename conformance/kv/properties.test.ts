import { registerCases } from '../../src/conformance/register-cases.ts';
import { cases } from './properties.cases.ts';

registerCases('kv', cases);
