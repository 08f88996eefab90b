import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['**/test/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    // Integration tests start real servers and browsers; 2 cores is the budget.
    maxWorkers: 2,
    reporters: ['default', './tools/vitest/summaryReporter.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
