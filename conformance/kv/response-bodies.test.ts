import { registerCases } from '../../src/engines/conformance/register-cases.ts';
import { cases } from './response-bodies.cases.ts';

registerCases('kv', cases);
