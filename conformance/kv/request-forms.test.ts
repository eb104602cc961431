import { registerCases } from '../../src/engines/conformance/register-cases.ts';
import { cases } from './request-forms.cases.ts';

registerCases('kv', cases);
