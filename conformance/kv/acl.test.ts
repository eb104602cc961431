import { registerCases } from '../../src/engines/conformance/register-cases.ts';
import { cases } from './acl.cases.ts';

registerCases('kv', cases);
