/**
 * Runs the webpack bundling of the workflow code in a short-lived thread. Webpack leaves about 150 MiB in the
 * heap that bundles it, which a worker process would otherwise carry for its lifetime; a thread's heap is
 * returned to the system when the thread ends.
 */
import { Worker } from 'node:worker_threads';
import type { WorkflowBundle } from '@temporalio/worker';

// A plain JavaScript entry, which loads the bundler of this module's kind: ./bundle-workflows.ts from the sources
// (the thread then registers the TypeScript loader itself: a thread does not inherit it), or the compiled
// ./bundle-workflows.js in dist/.
const THREAD_ENTRY = new URL('./thread-entry.mjs', import.meta.url);
const BUNDLER = new URL(`./bundle-workflows${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url);

export function bundleInThread(actionKeys: unknown): Promise<WorkflowBundle> {
  return new Promise((resolve, reject) => {
    const thread = new Worker(THREAD_ENTRY, { workerData: { bundler: BUNDLER.href, actionKeys } });
    thread.once('message', (message: { bundle?: WorkflowBundle; error?: string }) => {
      if (message.bundle) resolve(message.bundle);
      else reject(new Error(`bundling the workflow code failed: ${message.error}`));
    });
    thread.once('error', reject);
    thread.once('exit', (code) => reject(new Error(`the bundling thread exited (${code}) without a bundle`)));
  });
}
