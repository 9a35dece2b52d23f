import { CODEC_CORS_VARIABLE } from '../../client/server/index.js';
import { projectPath } from '../../config/project-folder.js';
import { SERVED_ENVIRONMENTS_VARIABLE } from '../../config/served-environments.js';
import { POLICY_FILE_VARIABLE, POLICY_JSON_VARIABLE } from '../../domain/approval/index.js';

/**
 * dev's approval policy, unless the caller names one: the shipped staging policy with two teams, one with a budget, so
 * orders are charged to teams and the demo meets a budget (docs/approval-policy.md, "Teams and budgets").
 */
// From the project's folder, since the compiled dev (dist/) runs beside the sources, not among them.
export const DEV_POLICY_FILE = projectPath('tooling/dev/approval-policy.json');

export interface EngineEnvOptions {
  env: NodeJS.ProcessEnv;
  /** The ordering API's settings (the simulator's), over the environment's; empty for MVE_API_BASE_URL's API. */
  apiEnv: NodeJS.ProcessEnv;
  callbackSecret: string;
  simulated: boolean;
  kindMapFile: string | undefined;
  /** Where the real Temporal server's Web UI calls the codec server from. */
  temporalUiOrigins: readonly string[];
}

/** The environment dev runs the HTTP API and the worker with: the caller's, completed with dev's own settings. */
export function engineEnv(options: EngineEnvOptions): NodeJS.ProcessEnv {
  const { env, apiEnv, temporalUiOrigins } = options;
  return {
    ...env,
    ...apiEnv,
    MVE_CALLBACK_SECRET: options.callbackSecret,
    ...(env[POLICY_FILE_VARIABLE]?.trim() || env[POLICY_JSON_VARIABLE]?.trim()
      ? {}
      : { [POLICY_FILE_VARIABLE]: DEV_POLICY_FILE }),
    // dev runs one worker, for the ordering API's environment: the API takes orders for that environment only.
    [SERVED_ENVIRONMENTS_VARIABLE]: apiEnv['MVE_ENVIRONMENT'] ?? 'staging',
    // A ticket system tried out next to dev listens on this machine over plain http.
    MVE_CALLBACK_ALLOW_HTTP: env['MVE_CALLBACK_ALLOW_HTTP'] ?? 'true',
    MVE_CALLBACK_ALLOWED_NETWORKS: env['MVE_CALLBACK_ALLOWED_NETWORKS'] ?? '127.0.0.0/8,::1',
    // The simulator has a product LIVE within seconds of the buy (a real one takes minutes): read it that often.
    ...(options.simulated
      ? {
          MVE_PROVISIONING_POLL: env['MVE_PROVISIONING_POLL'] ?? '2s',
          MVE_PROVISIONING_POLL_MAX: env['MVE_PROVISIONING_POLL_MAX'] ?? '5s',
        }
      : {}),
    ...(options.kindMapFile ? { MVE_KIND_MAP: options.kindMapFile } : {}),
    ...(temporalUiOrigins.length > 0
      ? { [CODEC_CORS_VARIABLE]: [env[CODEC_CORS_VARIABLE], ...temporalUiOrigins].filter(Boolean).join(',') }
      : {}),
  };
}
