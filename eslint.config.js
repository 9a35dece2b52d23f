// ESLint with typescript-eslint's type-checked recommended rules. The two promise rules are errors because in Temporal
// code a promise nobody awaits is a real bug (a lost activity result, a handler that races the workflow).
import { builtinModules } from 'node:module';
import tseslint from 'typescript-eslint';

/**
 * Every module Node has built in, by its exact name (`fs`, `fs/promises`): a name, not a pattern, for `domain` is
 * one of them too. With the `node:` prefix, any of them.
 */
const NODE_BUILT_INS = builtinModules
  .filter((name) => !name.startsWith('_'))
  .map((name) => ({ name, message: 'workflow code does no I/O and uses none of Node: use an activity' }));

export default tseslint.config(
  // tmp/ is the git-ignored scratch folder (throwaway measurements), as .data/ is dev's.
  { ignores: ['node_modules/**', 'dist/**', '.data/**', '.tools/**', 'tmp/**', '**/node_modules/**'] },
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unused-expressions': 'error',
      // One function is one idea a reader holds on one screen: 80 lines of code, blank lines and comments not
      // counted. A module is many functions, never one function that holds the module.
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true, IIFEs: true }],
    },
  },
  {
    // A test tells one story, its set-up and its checks side by side: it may run longer, not without end.
    files: ['test/**/*.ts'],
    rules: {
      'max-lines-per-function': ['error', { max: 120, skipBlankLines: true, skipComments: true, IIFEs: true }],
    },
  },
  {
    // Workflow code is replayed: it must be deterministic and do no I/O.
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: NODE_BUILT_INS,
          patterns: [
            {
              group: ['node:*'],
              message: 'workflow code does no I/O and uses none of Node: use an activity',
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
