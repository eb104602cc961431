import { registerCases } from '../../src/engines/conformance/register-cases.ts';
import { cases } from './byte-classes.cases.ts';

registerCases('kv', cases);
