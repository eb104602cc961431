/** Every fault switch of the reference service, over all areas (area B only for now). */
import type { FaultSwitch } from './fault-registry.ts';
import { kvFaults } from './kv/kv-faults.ts';

export const allFaults: readonly FaultSwitch[] = [...kvFaults];
