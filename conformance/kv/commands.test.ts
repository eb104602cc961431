import { registerCases } from '../../src/engines/conformance/register-cases.ts';
import { cases } from './commands.cases.ts';

registerCases('kv', cases);
