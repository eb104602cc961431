import { registerCases } from '../../src/conformance/register-cases.ts';
import { cases } from './request-forms.cases.ts';

registerCases('kv', cases);
