import { defineConfig } from 'vitest/config'

/**
 * Files that close their embedded store and hand its data directory to a child process
 * (a CLI, a killed and restarted worker). libchdb binds one data directory per process and
 * holds it while any session is open, so these run in a fresh process each.
 */
const HAND_THE_STORE_TO_A_CHILD = [
  'test/backfill-command.test.ts',
  'test/backfill-hostile-lines.test.ts',
  'test/backfill-redis-loss.test.ts',
  'test/backfill-sigkill.test.ts',
  'test/change-feed-sigkill.test.ts',
  'test/dead-letters-backfill-lines.test.ts',
  'test/dead-letters-cli.test.ts',
  'test/follower-sigkill.test.ts',
  'test/ingest-dead-letters.test.ts',
  'test/queue-factory.test.ts',
]

export default defineConfig({
  test: {
    // Each worker is a process of its own: an embedded ClickHouse data directory can be
    // opened by one process only. Most of a test's time is spent waiting (inserts, polls,
    // child processes), so four workers keep two cores busy.
    pool: 'forks',
    maxWorkers: 4,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default', './test/support/slowest-files-reporter.ts'],
    // One directory of saved devnet deployments per run: each market is deployed once, then
    // loaded; one for the workers' embedded stores, removed with whatever a worker left.
    globalSetup: ['./test/support/devnet-state-setup.ts', './test/support/test-stores-setup.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'suite',
          include: ['test/**/*.test.ts'],
          exclude: HAND_THE_STORE_TO_A_CHILD,
          // A worker runs file after file with its modules loaded once; each file still
          // opens its own database and Redis prefix.
          isolate: false,
        },
      },
      { extends: true, test: { name: 'own-process', include: HAND_THE_STORE_TO_A_CHILD, isolate: true } },
    ],
  },
})
