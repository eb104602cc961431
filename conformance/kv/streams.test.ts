import { registerCases } from '../../src/conformance/register-cases.ts';
import { cases } from './streams.cases.ts';

registerCases('kv', cases);
