import { startTemporalCluster, type TemporalCluster, type TemporalClusterOptions } from './cluster.js';

/**
 * Starts made in all: the ports a cluster's processes are given are free when picked, but another program, or an
 * outgoing connection's local port, can take one before its process binds it; that process then ends saying so
 * (`address already in use`), the start fails quoting it, and the ports are picked again.
 */
const START_ATTEMPTS = 3;

/**
 * startTemporalCluster, started again on other ports when one was lost before its process bound it: `optionsFor` is
 * asked for the options at each attempt (a frontend port picked free then, too).
 */
export async function startTemporalClusterOnFreePorts(
  optionsFor: () => Promise<TemporalClusterOptions>,
): Promise<TemporalCluster> {
  for (let attempt = 1; ; attempt++) {
    const options = await optionsFor();
    try {
      return await startTemporalCluster(options);
    } catch (error) {
      if (attempt >= START_ATTEMPTS || !/address already in use/.test((error as Error).message)) throw error;
      options.log?.('temporal cluster: a port was taken before its process bound it; starting again on other ports');
    }
  }
}
