// What several benches measure the same way: a process's CPU from /proc, this process's own,
// and polling for a condition with a bound.
import { readFileSync } from 'node:fs';

/** user + system CPU of a process, in ms (Linux /proc); NaN once it has exited. */
export function cpuMsOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return NaN;
  }
}

/** user + system CPU of this process (all its threads), in ms. */
export function ownCpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `ready` every 200 ms for at most `seconds`; returns whether it became true. */
export async function until(ready: () => boolean | Promise<boolean>, seconds: number): Promise<boolean> {
  for (let i = 0; i < seconds * 5; i++) {
    if (await ready()) return true;
    await sleep(200);
  }
  return ready();
}
