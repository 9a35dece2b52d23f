/**
 * Bundles the order workflow code with webpack (run in a thread of its own: ./in-thread.ts). The
 * action-signing keys are compiled in (workflows/order/action-keys.ts): the validators need them
 * synchronously, and they must never travel in history.
 */
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, type WorkflowBundle } from '@temporalio/worker';
import webpack from 'webpack';

// The workflow code is bundled from the same kind of file as this module: the TypeScript sources, or the
// compiled JavaScript beside it in dist/ (npm run build), so that a compiled worker runs the code it was built with.
const extension = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
export const WORKFLOWS_PATH = fileURLToPath(new URL(`../../workflows/index${extension}`, import.meta.url));
/** Loaded once per worker and shared by every order run in its sandbox (see the module's comment). */
const SHARED_LIBRARIES_PATH = fileURLToPath(new URL(`../../workflows/shared-libraries${extension}`, import.meta.url));

/** `actionKeys`: the keyring's exported entries (Keyring.exportEntries()). */
export function bundleOrderWorkflows(actionKeys: unknown): Promise<WorkflowBundle> {
  return bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    preloadModules: [SHARED_LIBRARIES_PATH],
    logger: quietBundlerLogger,
    webpackConfigHook: (config) => ({
      ...config,
      plugins: [
        ...(config.plugins ?? []),
        new webpack.DefinePlugin({ __MVE_ACTION_KEYS__: JSON.stringify(actionKeys) }),
      ],
    }),
  });
}

const quietBundlerLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (message: string) => console.warn(message),
  error: (message: string) => console.error(message),
};
