/**
 * Area C's silence switches: each makes the reference take another legal choice where the spec says
 * "not shown" (error statuses and bodies) or says nothing (fields beyond its tables). With any of them
 * on, no case of the suites may fail.
 */
import { defineSilences } from '../fault-registry.ts';

export const managementSilences = defineSilences([
  {
    name: 'management-errors-own',
    area: 'management',
    silence: [
      'notes: C.error-answers',
      'C.observe.invalid-request-status',
      'C.observe.unknown-id-status',
      'C.observe.unauthorized-status',
    ],
    description:
      'refusals answer 403 (credentials), 422 (an invalid request) and 400 (an unknown id), each with its status text as text/plain: area C’s error statuses and bodies are not shown',
  },
  {
    name: 'management-extra-fields',
    area: 'management',
    silence: 'notes: C.extra-fields',
    description:
      'the account and index objects carry fields beyond the spec’s tables (a plan name, a timestamp text, an object)',
  },
]);

export type ManagementSilenceName = (typeof managementSilences)[number]['name'];

export type ManagementSilenceCheck = (name: ManagementSilenceName) => boolean;

/** A typed view of the silence switches turned on for area C. */
export function managementSilenceCheck(silences: { has(name: string): boolean }): ManagementSilenceCheck {
  return (name) => silences.has(name);
}
