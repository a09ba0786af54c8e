// Lint rules: typescript-eslint recommended, plus the project's own: no process.exit outside the CLI entry point.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'bench/.cache/**',
      '.cache/**',
      'collections/**',
      '.obflow/**',
      'coverage/**',
      'templates/workspace/rules.mjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-properties': ['error', { object: 'process', property: 'exit', message: 'Only src/cli/main.ts decides exit codes.' }],
    },
  },
  {
    files: ['src/cli/main.ts', 'templates/workspace/run.mjs', 'bench/**', 'tools/**', 'test/**'],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    files: ['bench/**/*.js', 'tools/**/*.js', 'scripts/**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
  // The scripts opt out of postman-sandbox's legacy globals (postman, atob, btoa, CryptoJS, …): require() them.
  { files: ['templates/**/*.js'], languageOptions: { globals: { pm: 'readonly', require: 'readonly', console: 'readonly' } } },
  // The workspace's own runner and report renderer run on plain Node.js (templates/workspace/, copied into workspaces).
  { files: ['templates/workspace/**/*.mjs'], languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } } },
);
