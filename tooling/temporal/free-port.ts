import net from 'node:net';

/**
 * A port free on `host` now, found by binding port 0 briefly: for a program that must be told its port before it
 * starts. Another socket may still take it before that program binds it; such a program says so, and is started again.
 */
export function freePort(host: string): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const probe = net.createServer();
    probe.unref();
    probe.once('error', reject);
    probe.listen(0, host, () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
