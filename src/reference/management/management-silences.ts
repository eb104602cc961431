/**
 * Area C's silence switches: each makes the reference take another legal choice where the spec says
 * "not shown" (error statuses and bodies, deletes). With any of them on, no case of the suites may fail.
 */
import { defineSilences } from '../fault-registry.ts';

export const managementSilences = defineSilences([]);

export type ManagementSilenceName = (typeof managementSilences)[number]['name'];

export type ManagementSilenceCheck = (name: ManagementSilenceName) => boolean;
