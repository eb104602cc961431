/**
 * Area C as one area of the reference: its fault switches, and a start that loads the area only
 * when it runs (listing faults or checking their names loads no server and no Redis client).
 */
import type { ReferenceArea } from '../reference-area.ts';
import { managementFaults } from './management-faults.ts';
import { managementSilences } from './management-silences.ts';

export const managementReferenceArea: ReferenceArea = {
  name: 'management',
  title: 'management (area C)',
  faults: managementFaults,
  silences: managementSilences,
  async start(settings) {
    const { startManagementService } = await import('./management-service.ts');
    return startManagementService(settings);
  },
};
