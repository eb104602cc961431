import { registerCases } from '../../src/engines/conformance/register-cases.ts';
import { cases } from './pipeline.cases.ts';

registerCases('kv', cases);
