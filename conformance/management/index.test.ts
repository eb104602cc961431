import { registerCases } from '../../src/engines/conformance/register-cases.ts';
import { cases } from './index.cases.ts';

registerCases('management', cases);
