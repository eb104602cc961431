import { registerCases } from '../../src/engines/conformance/register-cases.ts';
import { cases } from './streams.cases.ts';

registerCases('kv', cases);
