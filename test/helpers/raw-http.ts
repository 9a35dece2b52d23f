import { connect, type Socket } from 'node:net';

/**
 * A TCP connection to a local HTTP server, written to by hand (a request sent a piece at a time), and everything it
 * receives until the server closes it, with how long that took from the connect.
 */
export function rawConnection(port: number): { socket: Socket; received: Promise<{ text: string; ms: number }> } {
  const started = Date.now();
  const socket = connect(port, '127.0.0.1');
  let text = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
  // A connection cut by the server may end in an error (ECONNRESET): it is closed all the same.
  socket.on('error', () => undefined);
  const received = new Promise<{ text: string; ms: number }>((resolve) =>
    socket.once('close', () => resolve({ text, ms: Date.now() - started })),
  );
  return { socket, received };
}

/** The error code of a new connection to `port` (ECONNREFUSED when nothing listens), or 'connected'. */
export function tryConnect(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}
