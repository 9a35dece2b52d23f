import type { Issue } from './issues.js';

/** What a selection or check that can fail returns: a value with warnings, or the issues that stop it. */
export type Selection<T> = { ok: true; value: T; warnings: Issue[] } | { ok: false; issues: Issue[] };
