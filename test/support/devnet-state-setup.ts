import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestProject } from 'vitest/node'

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where the devnet tests' saved deployments go (devnet/saved-devnet.ts): deployed once per run, then loaded. */
    devnetStateDir: string
  }
}

/** vitest globalSetup: one directory of saved devnet deployments per test run, removed after it. */
export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'devnet-state-'))
  project.provide('devnetStateDir', dir)
  return () => rmSync(dir, { recursive: true, force: true })
}
