import { registerCases } from '../../src/engines/conformance/register-cases.ts';
import { cases } from './search.cases.ts';

registerCases('management', cases);
