import net from 'node:net';

/**
 * The preferred port when it is free on `host`, else 0 (any free port). Checked by binding it briefly: the
 * server that then takes it could still lose a race, and says so when it does.
 */
export async function preferredOrFree(preferred: number, host: string): Promise<{ port: number; taken: boolean }> {
  if (preferred === 0) return { port: 0, taken: false };
  const free = await new Promise<boolean>((resolve) => {
    const probe = net.createServer();
    probe.unref();
    probe.once('error', () => resolve(false));
    probe.listen(preferred, host, () => probe.close(() => resolve(true)));
  });
  return free ? { port: preferred, taken: false } : { port: 0, taken: true };
}

/**
 * For a program that must be told its port before it starts (the real Temporal server and its Web UI, and the API
 * whose URL the Web UI is given): the preferred port when free, else — and for 0 — a port free now.
 */
export async function concretePort(preferred: number, host: string): Promise<{ port: number; taken: boolean }> {
  const choice = await preferredOrFree(preferred, host);
  if (choice.port !== 0) return choice;
  const port = await new Promise<number>((resolve, reject) => {
    const probe = net.createServer();
    probe.unref();
    probe.once('error', reject);
    probe.listen(0, host, () => {
      const { port: free } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(free));
    });
  });
  return { port, taken: choice.taken };
}
