/** The workflows the worker bundles and registers. */
export { orderWorkflow } from './order/workflow.js';
