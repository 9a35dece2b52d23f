import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { constants as osConstants } from 'node:os';

/**
 * Runs the server (the command in its arguments) in the background, prints its process id, and exits with its
 * status once it ends. It stops the server (SIGINT: PostgreSQL's fast shutdown, a Temporal server's graceful one)
 * when its standard input reaches end of file: when the program that started it closes that pipe (stop()), or
 * ends, however it ends (SIGKILL too), as the pipe closes with it. So no server outlives the program that started it.
 */
const supervisor = (signal: StopSignal) => `
exec 3<&0
"$@" </dev/null >&2 3<&- &
server=$!
echo "$server"
{ while read -r _; do :; done; kill -${signal} "$server" 2>/dev/null; } <&3 &
watch=$!
exec 3<&- </dev/null
wait "$server"
status=$?
kill "$watch" 2>/dev/null
exit "$status"
`;

export interface SupervisedServer {
  /** The server's own process id (not its supervisor's). */
  pid: number;
  /** Settles when the server has ended, however it ended, saying how: `exit code 0`, `signal SIGKILL`. */
  exited: Promise<string>;
  /** Asks the server to stop (SIGINT) and waits until it has ended. Safe to call twice, and once it has ended. */
  stop(): Promise<void>;
}

export interface SuperviseOptions {
  /** The supervisor's name in the process list (`postgres-supervisor`). */
  name: string;
  /** Receives everything the server prints, stdout and stderr alike. */
  output: (chunk: string) => void;
  env?: NodeJS.ProcessEnv;
  /** Runs it as this account (root starting PostgreSQL as `postgres`). */
  account?: { uid: number; gid: number };
  /** The server's umask (0o077: the files it makes are its owner's alone). Default: this process's. */
  umask?: number;
  /**
   * The signal that stops it; default INT. A shell starts a background command with SIGINT ignored, so a server that
   * sets no handler of its own for it (Temporal's Web UI server) is stopped with TERM.
   */
  stopSignal?: StopSignal;
}

export type StopSignal = 'INT' | 'TERM';

/**
 * Starts a server under the supervisor (above), in a session (and so a process group) of its own: a terminal's Ctrl-C, which
 * signals its whole foreground process group, reaches the program that started the server, not the server, so that
 * program can stop what depends on the server first. Resolves once the server runs (its process id is known);
 * whether it is ready to serve is for the caller to find out.
 */
export function superviseServer(binary: string, args: string[], options: SuperviseOptions): Promise<SupervisedServer> {
  const script = `${options.umask === undefined ? '' : `umask ${options.umask.toString(8)}\n`}${supervisor(options.stopSignal ?? 'INT')}`;
  const child = spawn('/bin/sh', ['-c', script, options.name, binary, ...args], {
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
    ...(options.env ? { env: options.env } : {}),
    ...(options.account ? { uid: options.account.uid, gid: options.account.gid } : {}),
  });
  // Closing the supervisor's input once it has gone fails (EPIPE), harmlessly: the server has ended already.
  child.stdin.on('error', () => {});
  const exited = new Promise<string>((resolve) =>
    child.once('exit', (code, signal) => resolve(howEnded(code, signal))),
  );
  const stop = async () => {
    child.stdin.end();
    await exited;
  };
  child.stderr.setEncoding('utf8').on('data', options.output);
  return new Promise((resolve, reject) => {
    let printed = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      printed += chunk;
      const line = /^(\d+)\n/.exec(printed);
      if (line) resolve({ pid: Number(line[1]), exited, stop });
    });
    child.once('error', (error) => reject(error));
    void exited.then((how) => reject(new Error(`the server ended before it was ready (${how})`)));
  });
}

/** `exit code N`, or the signal that killed the server (the supervisor's shell reports it as 128 + N). */
function howEnded(code: number | null, signal: NodeJS.Signals | null): string {
  if (signal) return `signal ${signal}`;
  if (code !== null && code > 128) {
    const name = Object.entries(osConstants.signals).find(([, number]) => number === code - 128)?.[0];
    if (name) return `signal ${name}`;
  }
  return `exit code ${code}`;
}

/** The state letter of a process (`R`, `S`, `Z` for a zombie…), or undefined when it does not exist. */
export function processState(pid: number): string | undefined {
  try {
    return /\) (\S)/.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1];
  } catch {
    return undefined;
  }
}

/**
 * Waits up to `limitMs` for a process to end (a server whose supervisor went with a killed program is still in the
 * shutdown it was given). A zombie counts as ended. True when it has ended.
 */
export async function awaitProcessEnd(pid: number, limitMs: number): Promise<boolean> {
  const giveUpAt = Date.now() + limitMs;
  let state = processState(pid);
  while (state !== undefined && state !== 'Z' && Date.now() < giveUpAt) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    state = processState(pid);
  }
  return state === undefined || state === 'Z';
}
