// The bundling thread of ./in-thread.ts: loads the bundler it names (registering tsx first for the TypeScript
// sources, as bin/mve-orders.js does), bundles, posts the result.
import { parentPort, workerData } from 'node:worker_threads';

if (workerData.bundler.endsWith('.ts')) {
  const { register } = await import('tsx/esm/api');
  register();
}
const { bundleOrderWorkflows } = await import(workerData.bundler);
try {
  const { code, sourceMap } = await bundleOrderWorkflows(workerData.actionKeys);
  parentPort.postMessage({ bundle: sourceMap === undefined ? { code } : { code, sourceMap } });
} catch (error) {
  parentPort.postMessage({ error: error instanceof Error ? error.message : String(error) });
}
