import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'dist.*/**', 'dist-sea/**', 'node_modules/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      // The sanitiser and the terminal kit match control characters on purpose: that is their job.
      'no-control-regex': 'off',
      // A leading underscore marks a name a signature or a destructuring needs but this body does not use.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    files: ['test/**'],
    // Tests index the CLI's parsed JSON output freely; the product's own types are checked in src.
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.cjs', 'bin/**'],
    // CommonJS files: the launcher and the test helpers that run as plain Node scripts.
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
