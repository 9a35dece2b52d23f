import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

/** A loopback port with nothing listening on it: a dependency that is down. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Linux's default range for ports the system hands out (`/proc/sys/net/ipv4/ip_local_port_range`). */
const EPHEMERAL_FROM = 32_768;

/**
 * A loopback port free now and below the range the system hands out for port 0: a server told to come back on it later
 * (the port a start remembers) does not find it taken by a program that only asked for any free port meanwhile.
 */
export async function freePortBelowEphemeral(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * (EPHEMERAL_FROM - 20_000));
    const server = createServer();
    const free = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (free) {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      return port;
    }
  }
}
