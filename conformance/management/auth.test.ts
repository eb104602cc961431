import { registerCases } from '../../src/engines/conformance/register-cases.ts';
import { cases } from './auth.cases.ts';

registerCases('management', cases);
