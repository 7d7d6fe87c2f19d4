// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'data/', 'node_modules/', 'coverage/', 'artifacts/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // One executor (STYLE habit 1): only src/graphql/executor.ts may call graphql's execute directly.
      'no-restricted-imports': [
        'error',
        { paths: [{ name: 'graphql', importNames: ['execute', 'graphql'], message: 'Use the executor.' }] },
      ],
    },
  },
  {
    // Plain Node scripts (not TypeScript): declare the Node globals they use.
    files: ['scripts/**/*.mjs', '.ci/**/*.mjs', 'bench/**/*.mjs', 'bench/**/*.cjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', fetch: 'readonly' } },
  },
  {
    // The executor, and the compiler it runs operations with (graphql-js where graphql-jit is not exact).
    files: ['src/graphql/executor.ts', 'src/graphql/compile-operation.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
);
