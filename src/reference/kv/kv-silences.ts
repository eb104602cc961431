/**
 * Area B's silence switches: each makes the reference take another legal choice where the spec says
 * "not shown" or leaves a reading open (shared/notes/where-the-spec-is-silent.md lists the reference's
 * own). With any of them on, no case of the suites may fail.
 */
import { defineSilences } from '../fault-registry.ts';

export const kvSilences = defineSilences([]);

export type KvSilenceName = (typeof kvSilences)[number]['name'];

export type KvSilenceCheck = (name: KvSilenceName) => boolean;
