import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** The variable that tells test processes where their embedded stores go (runtime.ts). */
export const TEST_STORES_DIR = 'SMARTMONEY_TEST_STORES_DIR'

/**
 * vitest globalSetup: one directory per test run for the workers' embedded stores, removed
 * after the run. A worker removes its own store when it exits, but one ended by the runner
 * without an exit leaves it: this way nothing outlives the run.
 */
export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'smartmoney-test-run-'))
  process.env[TEST_STORES_DIR] = dir
  return () => rmSync(dir, { recursive: true, force: true })
}
