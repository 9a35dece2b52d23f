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
