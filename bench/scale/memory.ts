/** Memory of the stack's processes, read from /proc (Linux). */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** One process of a stack: its RSS and its PSS (shared pages divided among the processes that map them), in MiB. */
export interface ProcessMemory {
  process: string;
  pid: number;
  /** How many processes the figures sum: a PostgreSQL server's postmaster and backends. */
  processes: number;
  'RSS MiB': number;
  'PSS MiB': number;
}

/**
 * A process's memory, or with `tree` the memory of it and everything it started (PostgreSQL's postmaster and its
 * backends, whose RSS counts the shared buffers once per backend: their PSS sum counts them once).
 */
export function processMemory(process: string, pid: number, options: { tree?: boolean } = {}): ProcessMemory {
  const pids = options.tree ? treeOf(pid) : [pid];
  const sum = (read: (each: number) => number) => Math.round(pids.reduce((total, each) => total + read(each), 0));
  return { process, pid, processes: pids.length, 'RSS MiB': sum(rssMiB), 'PSS MiB': sum(pssMiB) };
}

/** Resident set size of one process, in MiB. */
export function rssMiB(pid: number): number {
  return kiBField(`/proc/${pid}/status`, 'VmRSS') / 1024;
}

/**
 * PostgreSQL's memory, in MiB: the postmaster and its backends, each counted by its proportional set size, so
 * that the shared buffers they all map are counted once (summed RSS would count them once per backend).
 */
export function postgresPssMiB(dataDir: string): number {
  const postmaster = Number.parseInt(
    readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0] ?? '',
    10,
  );
  return treePssMiB(postmaster);
}

/**
 * A process and everything it started (its children, theirs…), in MiB, each counted by its proportional set size: a
 * whole stack's memory, the Node runtime's pages shared between its processes counted once.
 */
function treePssMiB(root: number): number {
  return treeOf(root).reduce((sum, pid) => sum + pssMiB(pid), 0);
}

/** A process and everything it started, theirs too. */
function treeOf(root: number): number[] {
  const pids = [root];
  for (let i = 0; i < pids.length; i++) pids.push(...childrenOf(pids[i]));
  return pids;
}

/** The proportional set size of one process, in MiB. */
function pssMiB(pid: number): number {
  return kiBField(`/proc/${pid}/smaps_rollup`, 'Pss') / 1024;
}

function childrenOf(parent: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = safeRead(`/proc/${entry}/stat`);
    // the parent pid is the second field after the parenthesised command name
    const parentPid = stat && Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (parentPid === parent) children.push(Number(entry));
  }
  return children;
}

function kiBField(file: string, field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(safeRead(file) ?? '');
  return match ? Number(match[1]) : 0;
}

function safeRead(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined; // the process ended between the listing and the read
  }
}
