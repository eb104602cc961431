/** A typed view of the fault switches turned on for area B. */
import type { FaultSet } from '../fault-registry.ts';
import type { KvFaultName } from './kv-faults.ts';

export type KvFaultCheck = (name: KvFaultName) => boolean;

export function kvFaultCheck(faults: FaultSet): KvFaultCheck {
  return (name) => faults.has(name);
}
