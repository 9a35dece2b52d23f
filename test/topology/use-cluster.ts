import type { TestFn } from 'ava';
import { startCluster, type Cluster, type ClusterOptions } from './cluster.js';

/** A test file's cluster: started before its tests, stopped after them. TOPOLOGY_LOG=1 prints every process's output. */
export function useCluster(test: TestFn<{ cluster: Cluster }>, options: ClusterOptions = {}): void {
  const log = process.env['TOPOLOGY_LOG'] ? (line: string) => console.error(line) : undefined;
  test.before(async (t) => {
    t.context.cluster = await startCluster({ ...options, ...(log ? { log } : {}) });
    t.log(t.context.cluster.describe());
  });
  test.after.always(async (t) => {
    await t.context.cluster?.stop();
  });
}
