import { registerCases } from '../../src/conformance/register-cases.ts';
import { cases } from './commands.cases.ts';

registerCases('kv', cases);
