// ESLint (flat config): typescript-eslint's recommended rules over sources, tests and strategies;
// console output only in the CLI, its commands and the benchmarks (which print JSON lines).
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      'no-console': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  { files: ['src/cli.ts', 'src/commands/**', 'src/bench/**', 'test/**', '*.js', '*.cjs'], rules: { 'no-console': 'off' } },
  // pm2's ecosystem file is CommonJS by pm2's rule
  { files: ['*.cjs'], rules: { '@typescript-eslint/no-require-imports': 'off' } },
);
