import { registerCases } from '../../src/engines/conformance/register-cases.ts';
import { cases } from './account.cases.ts';

registerCases('management', cases);
