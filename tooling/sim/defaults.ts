// Apart from the simulator itself, so that the CLI's help can show them without loading it.
export const DEFAULT_SEED = 42;
export const DEFAULT_TOKEN_TTL_SECONDS = 3600;
/** A bought product is CONFIGURED 3 s and LIVE 8 s after its creation: long enough to be seen, short for a demo. */
export const DEFAULT_PROVISIONING = { configuredAfterMs: 3_000, liveAfterMs: 8_000 } as const;
/** offered: the product read answers; not-found / not-allowed: every read answers 404 / 405, as an API without it. */
export const SIM_PRODUCT_READ_MODES = ['offered', 'not-found', 'not-allowed'] as const;
export type SimProductReadMode = (typeof SIM_PRODUCT_READ_MODES)[number];
