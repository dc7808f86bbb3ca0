// ESLint (typescript-eslint, type-aware) for the library, the sample API, tests, benchmarks and doc examples.
// `npm run lint` runs it; `npm test` runs it before the tests.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const PATTERNS = [
  'cache',
  'rate-limit',
  'lock',
  'semaphore',
  'leader-election',
  'idempotency',
  'messaging',
  'structures',
  'health',
  'testing',
];

export default tseslint.config(
  { ignores: ['**/dist/**', 'node_modules/**', 'test/package/**', 'coverage/**', 'test-results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // Promises a caller forgets are the bugs a Redis library cannot afford (a lock never released, an error lost).
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-function-type': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-require-imports': 'off',
      'no-empty': ['error', { allowEmptyCatch: true }],
      // Key escaping and hostile-input checks match control characters on purpose.
      'no-control-regex': 'off',
    },
  },
  {
    // The layering: core, errors and the lease kernel (which locks, semaphores, leader election and idempotency
    // claims are built on) know no pattern. Only the module (redis-patterns.module.ts, redis-patterns.options.ts)
    // wires the patterns together.
    files: ['libs/redis-patterns/src/core/**/*.ts', 'libs/redis-patterns/src/errors/**/*.ts', 'libs/redis-patterns/src/lease/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [...PATTERNS.map((name) => `**/${name}/**`), '**/redis-patterns.module', '**/redis-patterns.options', '**/index'],
              message: 'core, errors and lease import no pattern: a pattern passes what differs in, or the module registers it.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.spec.ts', '**/*.integration-spec.ts', '**/*.e2e-spec.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-empty-function': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    languageOptions: { globals: globals.node },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
