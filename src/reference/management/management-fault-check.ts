/** A typed view of the fault switches turned on for area C. */
import type { FaultSet } from '../fault-registry.ts';
import type { ManagementFaultName } from './management-faults.ts';

export type ManagementFaultCheck = (name: ManagementFaultName) => boolean;

export function managementFaultCheck(faults: FaultSet): ManagementFaultCheck {
  return (name) => faults.has(name);
}
