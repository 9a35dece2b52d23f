// ESLint with typescript-eslint's type-aware rules. The two promise rules are errors because in Temporal code a
// promise nobody awaits is a real bug (a lost activity result, a handler that races the workflow).
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // tmp/ is the git-ignored scratch folder (throwaway measurements), as .data/ is dev's.
  { ignores: ['node_modules/**', 'dist/**', '.data/**', '.tools/**', 'tmp/**', '**/node_modules/**'] },
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.base],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unused-expressions': 'error',
    },
  },
  {
    // Workflow code is replayed: it must be deterministic and do no I/O.
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['node:*', 'fs', 'fs/*', 'http', 'https', 'net', 'crypto', 'child_process'],
              message: 'workflow code does no I/O: use an activity',
            },
            {
              group: ['@temporalio/activity', '@temporalio/client', '@temporalio/worker'],
              message: 'workflow code uses @temporalio/workflow only',
            },
            {
              group: ['**/activities/**', '**/infra/**', '**/client/**', '**/worker/**'],
              message: 'workflows import only domain/, schemas/ and their own room',
            },
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'setTimeout', message: 'use sleep() from @temporalio/workflow' },
        { name: 'setInterval', message: 'use sleep() in a loop' },
        { name: 'fetch', message: 'workflow code does no I/O: use an activity' },
      ],
    },
  },
);
