/**
 * postgres.js (3.4.9) can throw from a timer of its own, where no caller can catch it, when a connection is used
 * after its server went away: a reserved connection whose socket it has already dropped (porsager/postgres#1208),
 * `TypeError: Cannot read properties of null (reading 'write')`. That is the database going away, not a fault of
 * dev, and dev has its own answer to it (stop, or carry on stopping). While installed, such an error is handed to
 * `onError` instead of ending the process; any other uncaught error still ends it, its stack on stderr, exit code 1.
 * Returns the uninstaller.
 */
export function catchDatabaseClientErrors(onError: (error: Error) => void): () => void {
  const handler = (error: unknown) => {
    if (error instanceof Error && isDatabaseClientError(error)) {
      onError(error);
      return;
    }
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  };
  process.on('uncaughtException', handler);
  return () => process.removeListener('uncaughtException', handler);
}

/** Thrown by the postgres client's connection code itself (its first frame), not by code it called back. */
export function isDatabaseClientError(error: Error): boolean {
  const firstFrame = (error.stack ?? '').split('\n').find((line) => /^\s+at /.test(line));
  return firstFrame !== undefined && /[\\/]node_modules[\\/]postgres[\\/]src[\\/]connection\.js:/.test(firstFrame);
}
