/** Public face of worker/: the order worker, its dependencies, and what it registers on Temporal. */
export { createOrderWorker, orderWorkflowBundle, WORKFLOWS_PATH } from './order-worker.js';
export type { OrderWorkerOptions } from './order-worker.js';
export { createEnvironmentActivities, createWorkerDependencies } from './dependencies.js';
export type { DependencyOptions, EnvironmentActivityOptions, WorkerDependencies } from './dependencies.js';
export { ensureOrderSearchAttributes } from './search-attributes.js';
export { installRuntimeLogger, logApiCalls } from './logging.js';
export { runWorker } from './run.js';
export type { RunningWorker, RunWorkerOptions } from './run.js';
