import { registerCases } from '../../src/engines/conformance/register-cases.ts';
import { closeSinkAfterAll } from '../support/messaging-sink.ts';
import { cases } from './regions.cases.ts';

registerCases('messaging', cases);
closeSinkAfterAll();
