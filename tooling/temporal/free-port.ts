import net from 'node:net';

/**
 * A port free on `host` now, found by binding port 0 briefly: for a program that must be told its port before it
 * starts. Another socket may still take it before that program binds it; such a program says so, and is started again.
 */
export function freePort(host: string): Promise<number> {
  return bound(host, 0) as Promise<number>;
}

/**
 * A port free on `host` now within [low, high], tried at random: for a port that must stay in a range, as a Temporal
 * membership port must (PostgreSQL keeps it as a smallint, at most 32767, below the ports the system hands out).
 */
export async function freePortIn(host: string, low: number, high: number): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = await bound(host, low + Math.floor(Math.random() * (high - low + 1)));
    if (port !== undefined) return port;
  }
  throw new Error(`no free port on ${host} from ${low} to ${high} after 100 tries`);
}

/** The port bound on `host` (any free one for 0), released at once; undefined when it is taken. */
function bound(host: string, port: number): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.unref();
    probe.once('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EADDRINUSE' && port !== 0 ? resolve(undefined) : reject(error),
    );
    probe.listen(port, host, () => {
      const { port: taken } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(taken));
    });
  });
}
