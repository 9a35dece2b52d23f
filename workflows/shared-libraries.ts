/**
 * Modules the workflow sandbox loads once per worker and shares between workflow runs (the bundler's
 * `preloadModules`, worker/order-worker.ts), instead of evaluating them again for every run it creates or
 * replays: zod alone was most of a cached order's memory and of the time to create one, and building the approval
 * schemas and parsing a policy with schemas fresh from the run about a tenth of an order's workflow thread. The SDK
 * freezes what a shared module exports, so only pure modules belong here, whose exports are never written: the
 * libraries, and the approval rules (their schemas are kept behind functions, out of the freeze's reach: zod adds
 * members to a schema as it is first used). Everything else of ours stays per run.
 */
import { hmac } from '@noble/hashes/hmac';
import { sha256 } from '@noble/hashes/sha2';
import { z } from 'zod';
import '../domain/approval/index.js';

// zod sets its global defaults (error locale, memoizer) on first use, which a frozen module refuses: use it
// once here, before the freeze.
z.strictObject({ warm: z.string().min(1) }).safeParse({ warm: '' });
hmac(sha256, new Uint8Array(1), new Uint8Array(1));
