/**
 * One Jest run for the whole repo, in ESM mode (Nest 12 is ESM-only).
 * Tests import workspace libraries from source, so they need no build;
 * the e2e project drives the built stack (npm test builds first).
 */
const tsJest = ['ts-jest', { useESM: true, tsconfig: '<rootDir>/tsconfig.jest.json' }];

const common = {
  extensionsToTreatAsEsm: ['.ts', '.tsx'],
  transform: { '^.+\\.tsx?$': tsJest },
  moduleNameMapper: {
    '^@blog/contracts$': '<rootDir>/libs/contracts/src/index.ts',
    '^@blog/contracts/(.*)$': '<rootDir>/libs/contracts/src/$1.ts',
    '^@blog/server-kit$': '<rootDir>/libs/server-kit/src/index.ts',
    '^@blog/server-kit/testing$': '<rootDir>/libs/server-kit/src/testing/index.ts',
    '^@blog/server-kit/remote-html$': '<rootDir>/libs/server-kit/src/remote-html.ts',
    '^@blog/server-kit/backup$': '<rootDir>/libs/server-kit/src/backup/index.ts',
    '^@blog/server-kit/idle-memory$': '<rootDir>/libs/server-kit/src/idle-memory.ts',
    '^@blog/federation$': '<rootDir>/libs/federation/src/index.ts',
    '^@blog/(auth|posts|media|mail|social)$': '<rootDir>/services/$1/src/index.ts',
    '^@blog/gateway$': '<rootDir>/gateway/src/index.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  testEnvironment: 'node',
  rootDir: '.',
};

export default {
  globalSetup: '<rootDir>/libs/server-kit/test-setup/global-setup.mjs',
  globalTeardown: '<rootDir>/libs/server-kit/test-setup/global-teardown.mjs',
  // `npm test` passes --forceExit: on 2 cores the suites run in this one process, and a handle
  // a test leaves open (seen once beside two CPU burners, after every result was written) must
  // not hold CI past its results; the suites' own teardowns still stop what they started.
  // A test's own bound, not a speed check: CI machines are busy (10x room over an idle run's slowest).
  testTimeout: 120000,
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/{libs,gateway,services,web}/**/src/**/*.spec.ts'],
    },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/{libs,gateway,services}/**/test/**/*.spec.ts'],
    },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/e2e/tests/**/*.spec.ts'],
    },
    {
      ...common,
      displayName: 'infra',
      testMatch: ['<rootDir>/infra/test/**/*.spec.ts'],
    },
  ],
};
