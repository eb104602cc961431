import { registerCases } from '../../src/engines/conformance/register-cases.ts';
import { cases } from './reply-shapes.cases.ts';

registerCases('kv', cases);
