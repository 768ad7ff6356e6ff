import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux). */
const CLOCK_TICKS = 100;

/** utime + stime of a process from /proc, in milliseconds (0 when it cannot be read). */
export function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

/** CPU milliseconds of every process of one program on this machine (all `postgres` processes, say). */
export function programCpuMs(name: string): number {
  let sum = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === name) sum += processCpuMs(Number(entry));
    } catch {
      /* the process ended meanwhile */
    }
  }
  return sum;
}
