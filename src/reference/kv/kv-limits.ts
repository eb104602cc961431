/**
 * Area B limits (spec "Limits"): a maximum request size and a daily request limit, both applied per
 * command, inside pipelines and transactions too. The daily count restarts at midnight UTC.
 */

export const maxRequestSizeError = 'ERR max request size exceeded';
export const dailyLimitError = 'ERR max daily request limit exceeded';

export interface KvLimitsView {
  readonly maxRequestBytes: number;
  /** Commands per UTC day; null when off. */
  readonly dailyRequestLimit: number | null;
  /** Commands counted today. */
  readonly dailyRequestsUsed: number;
}

export class KvLimits {
  maxRequestBytes: number;
  dailyRequestLimit: number | null;
  #used = 0;
  #day = utcDay();

  constructor(maxRequestBytes: number, dailyRequestLimit: number | null) {
    this.maxRequestBytes = maxRequestBytes;
    this.dailyRequestLimit = dailyRequestLimit;
  }

  /** Size of one command: the bytes of its name and arguments. */
  exceedsSize(args: readonly Buffer[]): boolean {
    let bytes = 0;
    for (const arg of args) bytes += arg.length;
    return bytes > this.maxRequestBytes;
  }

  /** Counts `count` commands when they all fit today's limit; false (nothing counted) otherwise. */
  tryConsume(count: number): boolean {
    this.#rollOver();
    if (this.dailyRequestLimit !== null && this.#used + count > this.dailyRequestLimit) return false;
    this.#used += count;
    return true;
  }

  /** How many of `count` commands still fit today (without counting them). */
  remaining(count: number): number {
    this.#rollOver();
    if (this.dailyRequestLimit === null) return count;
    return Math.max(0, Math.min(count, this.dailyRequestLimit - this.#used));
  }

  resetDailyCount(): void {
    this.#used = 0;
    this.#day = utcDay();
  }

  view(): KvLimitsView {
    this.#rollOver();
    return {
      maxRequestBytes: this.maxRequestBytes,
      dailyRequestLimit: this.dailyRequestLimit,
      dailyRequestsUsed: this.#used,
    };
  }

  #rollOver(): void {
    const today = utcDay();
    if (today !== this.#day) {
      this.#day = today;
      this.#used = 0;
    }
  }
}

function utcDay(): string {
  return new Date().toISOString().slice(0, 10);
}
