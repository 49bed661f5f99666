import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Each worker is a process of its own: an embedded ClickHouse data directory can be
    // opened by one process only. A worker runs file after file with its modules loaded
    // once (isolate: false); each file still opens its own database and Redis prefix.
    pool: 'forks',
    isolate: false,
    // Most of a test's time is spent waiting (inserts, polls, child processes), so four
    // workers keep two cores busy.
    maxWorkers: 4,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // The devnet tests' Uniswap deployments: made once per run, loaded by each anvil.
    globalSetup: ['test/support/devnet-state-setup.ts'],
    reporters: ['default', './test/support/slowest-files-reporter.ts'],
  },
})
