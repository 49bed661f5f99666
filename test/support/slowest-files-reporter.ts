import { writeFileSync } from 'node:fs'
import type { Reporter, TestModule } from 'vitest/node'

/** Where the slowest files are written, for .ci/run to print again after the fault suite. */
export const SLOWEST_FILES_REPORT = '.vitest-slowest-files.txt'

/**
 * Prints the ten slowest test files at the end of a run (set-up and collection included):
 * the places to look first when the suite grows slow.
 */
export default class SlowestFilesReporter implements Reporter {
  private readonly files: { file: string; ms: number }[] = []

  onTestModuleEnd(module: TestModule): void {
    const d = module.diagnostic()
    this.files.push({ file: module.relativeModuleId, ms: d.prepareDuration + d.setupDuration + d.collectDuration + d.duration })
  }

  onTestRunEnd(): void {
    const slowest = [...this.files].sort((a, b) => b.ms - a.ms).slice(0, 10)
    if (slowest.length === 0) return
    const lines = ['The ten slowest test files (seconds, set-up included):', ...slowest.map((f) => `${(f.ms / 1000).toFixed(1).padStart(7)}  ${f.file}`)]
    const text = lines.join('\n') + '\n'
    writeFileSync(SLOWEST_FILES_REPORT, text)
    process.stdout.write(`\n${text}`)
  }
}
