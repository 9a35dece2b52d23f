// Apart from the simulator itself, so that the CLI's help can show them without loading it.
export const DEFAULT_SEED = 42;
export const DEFAULT_TOKEN_TTL_SECONDS = 3600;
