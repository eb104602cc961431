/**
 * Area B as one area of the reference: its fault switches, and a start that loads the area only
 * when it runs (listing faults or checking their names loads no server and no Redis client).
 */
import type { ReferenceArea } from '../reference-area.ts';
import { kvFaults } from './kv-faults.ts';
import { kvSilences } from './kv-silences.ts';

export const kvReferenceArea: ReferenceArea = {
  name: 'kv',
  title: 'key-value REST (area B)',
  faults: kvFaults,
  silences: kvSilences,
  async start(settings) {
    const { startKvService } = await import('./kv-service.ts');
    return startKvService(settings);
  },
};
