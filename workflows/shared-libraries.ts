/**
 * Libraries the workflow sandbox loads once per worker and shares between workflow runs (the bundler's
 * `preloadModules`, worker/order-worker.ts), instead of evaluating them again for every run it creates or
 * replays: zod alone was most of a cached order's memory and of the time to create one. The SDK freezes what
 * is shared, so only pure, stateless libraries belong here; our own modules (schemas included) stay per run.
 */
import { hmac } from '@noble/hashes/hmac';
import { sha256 } from '@noble/hashes/sha2';
import { z } from 'zod';

// zod sets its global defaults (error locale, memoizer) on first use, which a frozen module refuses: use it
// once here, before the freeze.
z.strictObject({ warm: z.string().min(1) }).safeParse({ warm: '' });
hmac(sha256, new Uint8Array(1), new Uint8Array(1));
