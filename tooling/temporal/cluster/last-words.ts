import { open } from 'node:fs/promises';

/** How much of the end of a log is read: its last lines, a stack trace or two included. */
const TAIL_BYTES = 64 * 1024;

/**
 * What a process of the cluster said last before it ended, from its log: its last error lines (the `msg` and `error`
 * of the server's JSON lines, or a plain line such as `Unable to create server. Error: …`), `count` at most, each cut
 * to its last 300 characters; empty when the log says nothing of the kind.
 */
export async function lastWords(logFile: string, count = 2): Promise<string> {
  let tail: string;
  try {
    const file = await open(logFile, 'r');
    try {
      const { size } = await file.stat();
      const start = Math.max(0, size - TAIL_BYTES);
      const { buffer, bytesRead } = await file.read(Buffer.alloc(size - start), 0, size - start, start);
      tail = buffer.subarray(0, bytesRead).toString('utf8');
    } finally {
      await file.close();
    }
  } catch {
    return '';
  }
  const said = tail.split('\n').flatMap((line) => {
    if (line.startsWith('{')) {
      try {
        const entry = JSON.parse(line) as { level?: string; msg?: string; error?: string };
        if (entry.level !== 'error' && entry.level !== 'fatal') return [];
        return [[entry.msg, entry.error].filter(Boolean).join(': ')];
      } catch {
        return []; // a line cut by the tail's start
      }
    }
    return /error|fail|unable/i.test(line) && !line.startsWith('---') ? [line.trim()] : [];
  });
  return (
    said
      .slice(-count)
      // the end of a long line: a chain of wrapped errors names its cause last
      .map((line) => (line.length > 300 ? `…${line.slice(-300)}` : line))
      .join(' | ')
  );
}
