/**
 * Area A as one area of the reference: its fault switches, and a start that loads the area only
 * when it runs (listing faults or checking their names loads no server and no Redis client).
 */
import type { ReferenceArea } from '../reference-area.ts';
import { messagingFaults } from './messaging-faults.ts';
import { messagingSilences } from './messaging-silences.ts';

export const messagingReferenceArea: ReferenceArea = {
  name: 'messaging',
  title: 'messaging and workflow (area A)',
  faults: messagingFaults,
  silences: messagingSilences,
  async start(settings) {
    const { startMessagingService } = await import('./messaging-service.ts');
    return startMessagingService(settings);
  },
};
