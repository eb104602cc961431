import { registerCases } from '../../src/conformance/register-cases.ts';
import { cases } from './acl.cases.ts';

registerCases('kv', cases);
