import { execFile } from 'node:child_process'

export interface CliRun {
  code: number
  stdout: string
  stderr: string
}

/** `npm run dead-letters -- ...args` as its own process, with `env` over the test's environment. */
export function runDeadLettersCli(env: Record<string, string>, args: string[]): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'ingest/cli/dead-letters-cli.ts', ...args],
      { cwd: process.cwd(), env: { ...process.env, ...env }, timeout: 60_000 },
      (err, stdout, stderr) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    )
  })
}
