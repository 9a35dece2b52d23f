import { readdirSync, readFileSync } from 'node:fs';

/** The processes with `text` in their command line (a data folder: the processes that serve from it). */
export function processesWith(text: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(text);
      } catch {
        return false; // ended meanwhile
      }
    })
    .map(Number);
}
