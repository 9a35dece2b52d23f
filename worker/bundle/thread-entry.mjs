// The bundling thread of ./in-thread.ts: registers tsx (as bin/mve-orders.js does), bundles, posts the result.
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { bundleOrderWorkflows } = await import('./bundle-workflows.ts');
try {
  const { code, sourceMap } = await bundleOrderWorkflows(workerData.actionKeys);
  parentPort.postMessage({ bundle: sourceMap === undefined ? { code } : { code, sourceMap } });
} catch (error) {
  parentPort.postMessage({ error: error instanceof Error ? error.message : String(error) });
}
