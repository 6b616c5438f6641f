import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const OUTBOUND_ONLY =
  'Fetch through outboundFetch from @blog/server-kit (it refuses private addresses); a call between our own services goes through the transport.';

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/dist-ssr/**',
      '**/node_modules/**',
      'data/**',
      'coverage/**',
      'bench-results/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        fetch: 'readonly',
        FormData: 'readonly',
        Blob: 'readonly',
        window: 'readonly',
        document: 'readonly',
        localStorage: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        performance: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'off',
    },
  },
  // A server fetches an address a user or a remote server chose only through the outbound
  // fetcher (libs/server-kit/src/outbound), which refuses private and reserved addresses.
  {
    files: ['gateway/src/**/*.ts', 'services/*/src/**/*.ts', 'libs/server-kit/src/**/*.ts'],
    ignores: ['**/*.spec.ts', 'libs/server-kit/src/outbound/**', 'libs/server-kit/src/testing/**'],
    rules: {
      'no-restricted-globals': ['error', { name: 'fetch', message: OUTBOUND_ONLY }],
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'node:http', importNames: ['request', 'get'], message: OUTBOUND_ONLY },
            { name: 'node:https', importNames: ['request', 'get'], message: OUTBOUND_ONLY },
            { name: 'http', importNames: ['request', 'get'], message: OUTBOUND_ONLY },
            { name: 'https', importNames: ['request', 'get'], message: OUTBOUND_ONLY },
            { name: 'undici', message: OUTBOUND_ONLY },
          ],
        },
      ],
    },
  },
  // The web app's layers: the app shell (web/src/*.tsx, loaders.ts)
  // may import any feature; shared code (components, lib, hooks, api, session, site) imports
  // none; a feature reaches another feature only through that feature's index.ts. Relative
  // specifiers cannot be resolved here, so the patterns count a file's depth in its feature.
  {
    files: ['web/src/{components,lib,hooks,api,session,site,testing}/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '(^|/)features(/|$)',
              message: 'Shared web code imports no feature: let the app shell pass the feature in.',
            },
          ],
        },
      ],
    },
  },
  ...[1, 2, 3].map((depth) => ({
    files: [`web/src/features/*/${'*/'.repeat(depth - 1)}*.{ts,tsx}`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              // '../'.repeat(depth) leads to features/: one more segment after the feature's name
              // is another feature's inside.
              regex: `^(\\.\\./){${depth}}[^./][^/]*/.+`,
              message: "Import another feature through its index.ts (e.g. '../account'), not its files.",
            },
          ],
        },
      ],
    },
  })),
);
