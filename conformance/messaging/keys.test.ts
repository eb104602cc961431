import { registerCases } from '../../src/engines/conformance/register-cases.ts';
import { cases } from './keys.cases.ts';

registerCases('messaging', cases);
