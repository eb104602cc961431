import { registerCases } from '../../src/conformance/register-cases.ts';
import { cases } from './pipeline.cases.ts';

registerCases('kv', cases);
