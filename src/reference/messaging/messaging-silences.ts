/**
 * Area A's silence switches: each makes the reference take another legal choice where the spec says
 * "not shown" or leaves a reading open (shared/notes/where-the-spec-is-silent.md lists the reference's
 * own). With any of them on, no case of the suites may fail.
 */
import { defineSilences } from '../fault-registry.ts';

export const messagingSilences = defineSilences([
  {
    name: 'publish-answers-202',
    area: 'messaging',
    silence: 'A.publish.response-shape',
    description: 'a publish is answered 202 rather than 200 (publish statuses: not shown)',
  },
]);

export type MessagingSilenceName = (typeof messagingSilences)[number]['name'];

export type MessagingSilenceCheck = (name: MessagingSilenceName) => boolean;
