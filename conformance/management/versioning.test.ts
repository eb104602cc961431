import { registerCases } from '../../src/engines/conformance/register-cases.ts';
import { cases } from './versioning.cases.ts';

registerCases('management', cases);
