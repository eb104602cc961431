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
  #day = utcDayOf(Date.now());

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
    this.#day = utcDayOf(Date.now());
  }

  view(): KvLimitsView {
    this.#rollOver();
    return {
      maxRequestBytes: this.maxRequestBytes,
      dailyRequestLimit: this.dailyRequestLimit,
      dailyRequestsUsed: this.#used,
    };
  }

  // Runs for every command: a comparison of numbers, not a date formatted per command (that was 4-6%
  // of the reference's CPU under bench/kv-throughput.ts).
  #rollOver(): void {
    const now = Date.now();
    if (now < this.#day.start || now >= this.#day.end) {
      this.#day = utcDayOf(now);
      this.#used = 0;
    }
  }
}

const dayMs = 24 * 60 * 60 * 1000;

/** The UTC day holding `time`, as [start, end) in epoch ms (JS time has no leap seconds: each day is dayMs). */
function utcDayOf(time: number): { readonly start: number; readonly end: number } {
  const start = Math.floor(time / dayMs) * dayMs;
  return { start, end: start + dayMs };
}
