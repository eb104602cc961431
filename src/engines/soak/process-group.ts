/**
 * A process group read from /proc (Linux): its live members, and what they use together. The soak
 * signals an implementation's whole group (managed-process.ts) and samples its memory and CPU as one
 * (resource-sampler.ts): an implementation started through npx or a shell is several processes, and
 * the server is one of its children. Every read tolerates a member that is gone by the time it is read
 * (killed by the nemesis, exited): it is simply not counted.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** What the live members of a group use together. */
export interface GroupUsage {
  /** The live members (zombies left out), by pid. */
  readonly pids: readonly number[];
  /** Resident memory, bytes: the sum of each member's VmRSS. */
  readonly rssBytes: number;
  /**
   * CPU time, seconds: each member's utime + stime, plus cutime + cstime (its children's, once it
   * reaped them), so a member that exits and is reaped by another keeps its time in the sum.
   */
  readonly cpuS: number;
}

/**
 * Clock ticks per second of /proc's times. Node cannot ask sysconf(_SC_CLK_TCK); Linux has fixed
 * USER_HZ at 100 on every architecture it reports times for to user space.
 */
const clockTicksPerS = 100;

interface StatFields {
  readonly state: string;
  readonly pgrp: number;
  /** utime + stime + cutime + cstime, in ticks. */
  readonly ticks: number;
}

/** `/proc/<pid>/stat`; undefined when the process is gone. */
function readStat(pid: string): StatFields | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid pgrp … utime stime cutime cstime …" (fields 14 to 17): the name may hold
  // spaces and parentheses, so read after the last ')'; field 3 (state) is index 0 there.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = [11, 12, 13, 14].reduce((sum, at) => sum + (Number(fields[at]) || 0), 0);
  return { state: fields[0] ?? '', pgrp: Number(fields[2]), ticks };
}

/** VmRSS of `/proc/<pid>/status`, bytes (kB there, 1024 bytes); 0 when the process is gone or has none. */
function readRssBytes(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match === null ? 0 : Number(match[1]) * 1024;
  } catch {
    return 0;
  }
}

/** The numeric entries of /proc; undefined where there is no /proc. */
function procEntries(): string[] | undefined {
  try {
    return readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    return undefined;
  }
}

/** Whether /proc can be read here (Linux): without it there is no group to read. */
export function hasProc(): boolean {
  return procEntries() !== undefined;
}

/**
 * The live members of group `pgid` with their stat; undefined where there is no /proc. Zombies do not
 * count: an orphan whose new parent (a container's first process) never reaps it stays one for good.
 */
function members(pgid: number): { readonly pid: number; readonly stat: StatFields }[] | undefined {
  const entries = procEntries();
  if (entries === undefined) return undefined;
  const found: { pid: number; stat: StatFields }[] = [];
  for (const entry of entries) {
    const stat = readStat(entry);
    if (stat !== undefined && stat.pgrp === pgid && stat.state !== 'Z') found.push({ pid: Number(entry), stat });
  }
  return found;
}

/** The live pids of group `pgid` (empty when none); undefined where there is no /proc to read. */
export function groupPids(pgid: number): number[] | undefined {
  return members(pgid)?.map((item) => item.pid);
}

/** What group `pgid` uses now; undefined when no member is alive or there is no /proc. Never throws. */
export function groupUsage(pgid: number): GroupUsage | undefined {
  const found = members(pgid);
  if (found === undefined || found.length === 0) return undefined;
  let rssBytes = 0;
  let ticks = 0;
  for (const { pid, stat } of found) {
    rssBytes += readRssBytes(pid);
    ticks += stat.ticks;
  }
  return { pids: found.map((item) => item.pid), rssBytes, cpuS: ticks / clockTicksPerS };
}
