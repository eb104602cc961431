/**
 * Whether the target has stopped answering during a run, told by the cases as they end. After
 * `stalledAfterCases` cases in a row got no whole answer, the remaining cases end at once as errors
 * instead of each waiting out its own timeout, and their reason says when the target stopped: the case
 * that got its last answer and the first that got none after it, with the times. A crash mid-suite
 * then reads as one, not as a target URL where nothing ever listened.
 */
import type { CaseMoment, TargetStop } from '../../results/conformance-run.ts';
import { stopLine } from '../../results/root-cause.ts';

/**
 * After this many cases in a row got no whole answer (refused, reset, timed out, or a body that did not
 * end before the answer cap), the target is taken to have stopped answering (a stalled target would
 * otherwise hold the run for minutes). An answer, however wrong (not JSON, a content type that
 * contradicts its body, not even HTTP), never counts: the target is still answering, and each case
 * judges what it got on its own rules.
 */
export const stalledAfterCases = 3;

/** What one case's requests met: when its last answer came, since when none did (ms since the epoch). */
export interface CaseAnswers {
  readonly lastAnswerAt: number | undefined;
  readonly silentSince: number | undefined;
}

interface Moment {
  readonly caseId: string;
  readonly at: number;
}

const moment = ({ caseId, at }: Moment): CaseMoment => ({ caseId, at: new Date(at).toISOString() });

export class AnswerWatch {
  #streak = 0;
  #lastReason = '';
  #lastAnswer: Moment | undefined;
  /** The first case that got no answer after the last answer. */
  #silence: Moment | undefined;
  #stop: TargetStop | undefined;

  /**
   * One case ended. `noAnswer`: why, when it ended without a whole answer (its reason), else undefined.
   * Cases run concurrently end in any order, so moments are compared by time, not by order of ending.
   */
  caseEnded(caseId: string, answers: CaseAnswers, noAnswer: string | undefined, now: number = Date.now()): void {
    if (answers.lastAnswerAt !== undefined && answers.lastAnswerAt > (this.#lastAnswer?.at ?? -1)) {
      this.#lastAnswer = { caseId, at: answers.lastAnswerAt };
      if (this.#silence !== undefined && this.#silence.at < answers.lastAnswerAt) this.#silence = undefined;
    }
    if (noAnswer === undefined) {
      this.#streak = 0;
      this.#stop = undefined;
      return;
    }
    this.#streak += 1;
    this.#lastReason = noAnswer;
    // A case that got no answer without a request of the log going unanswered (a stream, a wait cut off
    // by the case's budget) went silent when it ended, as far as anyone can tell.
    const at = answers.silentSince ?? now;
    if (at >= (this.#lastAnswer?.at ?? -1) && (this.#silence === undefined || at < this.#silence.at)) {
      this.#silence = { caseId, at };
    }
    if (this.#streak >= stalledAfterCases && this.#stop === undefined) {
      this.#stop = {
        ...(this.#lastAnswer && { lastAnswer: moment(this.#lastAnswer) }),
        firstSilence: moment(this.#silence ?? { caseId, at }),
      };
    }
  }

  /** When the target stopped answering, with the reason the cases not run give; undefined while it answers. */
  stopped(): { readonly stop: TargetStop; readonly reason: string } | undefined {
    if (this.#stop === undefined) return undefined;
    const reason = `not run: the target stopped answering during the run: ${stopLine(this.#stop)}; ${this.#streak} cases in a row got no whole answer (refused, reset, timed out or endless; the last: ${this.#lastReason})`;
    return { stop: this.#stop, reason };
  }
}
