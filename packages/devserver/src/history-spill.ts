/**
 * Packed histories of idle runs, kept in a scratch file instead of memory. An order parked for approval keeps
 * its history for days and is rarely read; the real server keeps histories in its database, not in memory.
 * Reads stay synchronous (`readSync` of a few kilobytes, usually from the page cache), so the engine reads a
 * history as it always did. The file is unlinked as soon as it is opened: it is scratch, gone when the process
 * is, and never read by another (the durable store's PostgreSQL tables are the history of record).
 *
 * Each put appends; a taken or dropped history leaves a hole. When the holes outgrow both the live bytes and
 * 64 MiB, the live histories are copied into a fresh file.
 */
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';

const COMPACT_AFTER_BYTES = 64 * 1024 * 1024;

interface Slot {
  offset: number;
  length: number;
}

export class HistorySpill {
  private fd: number;
  private end = 0;
  private liveBytes = 0;
  /** The file's length when a compaction last failed: not tried again until more is written. */
  private failedCompactionAt = -1;
  private readonly slots = new Map<object, Slot>();

  /** `compactAfterBytes`: the holes allowed beyond the live bytes before a compaction (tests set it small). */
  constructor(
    private readonly dir: string,
    private readonly compactAfterBytes = COMPACT_AFTER_BYTES,
  ) {
    this.fd = openScratch(dir);
  }

  /** Stores `bytes` for `owner`, replacing what it stored before. False when the file could not take them (the caller keeps them). */
  put(owner: object, bytes: Uint8Array): boolean {
    this.drop(owner);
    try {
      writeFully(this.fd, bytes, this.end);
    } catch {
      return false; // disk full or gone: memory still works
    }
    this.slots.set(owner, { offset: this.end, length: bytes.length });
    this.end += bytes.length;
    this.liveBytes += bytes.length;
    return true;
  }

  /** The bytes stored for `owner`, which no longer holds a slot. */
  take(owner: object): Uint8Array {
    const slot = this.slots.get(owner);
    if (!slot) throw new Error('nothing spilled for this history');
    const bytes = readFully(this.fd, slot);
    this.drop(owner);
    return bytes;
  }

  drop(owner: object): void {
    const slot = this.slots.get(owner);
    if (!slot) return;
    this.slots.delete(owner);
    this.liveBytes -= slot.length;
    if (
      this.end !== this.failedCompactionAt &&
      this.end - this.liveBytes > Math.max(this.compactAfterBytes, this.liveBytes)
    )
      this.compact();
  }

  /** Bytes held for histories, and the file's length (holes included). */
  get size(): { live: number; file: number; histories: number } {
    return { live: this.liveBytes, file: this.end, histories: this.slots.size };
  }

  close(): void {
    closeSync(this.fd);
  }

  /** Copies the live histories into a fresh file. If that fails (a full disk), the old file, holes and all, stays in use. */
  private compact(): void {
    let fresh: number | undefined;
    try {
      fresh = openScratch(this.dir);
      const moved = new Map<Slot, number>();
      let end = 0;
      for (const slot of this.slots.values()) {
        writeFully(fresh, readFully(this.fd, slot), end);
        moved.set(slot, end);
        end += slot.length;
      }
      for (const [slot, offset] of moved) slot.offset = offset;
      closeSync(this.fd);
      this.fd = fresh;
      this.end = end;
    } catch {
      if (fresh !== undefined && fresh !== this.fd) closeSync(fresh);
      this.failedCompactionAt = this.end;
    }
  }
}

/** A file nobody else can open: created in a private folder, then unlinked with it. */
function openScratch(dir: string): number {
  const folder = mkdtempSync(path.join(dir, 'devserver-histories-'));
  try {
    return openSync(path.join(folder, 'spill'), 'w+', 0o600);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

function writeFully(fd: number, bytes: Uint8Array, position: number): void {
  for (let written = 0; written < bytes.length;)
    written += writeSync(fd, bytes, written, bytes.length - written, position + written);
}

function readFully(fd: number, slot: Slot): Uint8Array {
  const bytes = new Uint8Array(slot.length);
  for (let read = 0; read < slot.length;) {
    const got = readSync(fd, bytes, read, slot.length - read, slot.offset + read);
    if (got === 0) throw new Error('the history spill file ended early');
    read += got;
  }
  return bytes;
}
