/** The data of a region comparison (`svc-harness regions`): the ranking with its statistics, and the run's frame. */
import type { RegionRanking } from './region-ranking.ts';

export interface RegionsRun extends RegionRanking {
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly durationMs: number;
  readonly target: string;
  readonly embedded: boolean;
  readonly problems: readonly string[];
  readonly aborted?: string;
  readonly exitCode: number;
}
