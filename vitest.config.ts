import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      // Generous timeouts: CI has 2 cores and runs the corpus and real processes side by side.
      { test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: ['test/integration/**'], testTimeout: 30_000 } },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
