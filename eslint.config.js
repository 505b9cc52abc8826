// Lint rules: typescript-eslint with type information, plus the house budgets (AGENTS.md).
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      'dist/**',
      'dist.partial/**',
      '.test-build/**',
      'scripts/**',
      'data/**',
      'bin/**',
      'eslint.config.js',
    ],
  },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            {
              from: 'package',
              package: 'node:test',
              name: ['describe', 'it', 'test', 'suite', 'before', 'after', 'beforeEach', 'afterEach'],
            },
          ],
        },
      ],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.test.ts'],
    rules: {
      // Files split by responsibility past 300 lines (counted without blank and comment lines). Three are still over
      // it (agent/mcp/mcp-oauth-calls.ts 332, channels/terminal/terminal-adapter.ts 330,
      // channels/discord/discord-adapter.ts 319): the limit stands at the largest until they are split, and no file
      // may grow past it.
      'max-lines': ['error', { max: 332, skipBlankLines: true, skipComments: true }],
      'max-lines-per-function': ['error', { max: 60, skipBlankLines: true, skipComments: true }],
      complexity: ['error', 15],
    },
  },
);
