import type { ChildProcess } from 'node:child_process'
import { spawnTsx } from '../support/backfill-files.js'

/** What `npm run backfill -- --wait` printed, read from its summary. */
export interface BackfillOutcome {
  code: number | null
  read: number
  accepted: number
  rejected: number
  /** Records it said it cannot vouch for (`not confirmed: N records`). */
  notConfirmed: number
  failedJobs: number
  stdout: string
  stderr: string
  ms: number
}

function count(stdout: string, pattern: RegExp): number {
  const match = pattern.exec(stdout)
  return match ? Number(match[1]!.replace(/,/g, '')) : 0
}

/** Backfill commands still running (the suite kills them if it is interrupted). */
export const running = new Set<ChildProcess>()

/** Starts the backfill command (ingest/cli/backfill-cli.ts, as `npm run backfill` does) as a child process. */
export function startBackfill(
  args: string[],
  env: Record<string, string>,
): { done: Promise<BackfillOutcome>; finished: () => boolean; kill: () => void } {
  const started = Date.now()
  const child = spawnTsx('ingest/cli/backfill-cli.ts', args, env)
  let stdout = ''
  let stderr = ''
  let over = false
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()))
  child.stderr!.on('data', (d: Buffer) => {
    stderr += d.toString()
    if (stderr.length > 100_000) stderr = stderr.slice(-50_000)
  })
  const done = new Promise<BackfillOutcome>((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code) => {
      over = true
      resolve({
        code,
        read: count(stdout, /records read: ([\d,]+)/),
        accepted: count(stdout, /accepted: ([\d,]+)/),
        rejected: count(stdout, /rejected: ([\d,]+)/),
        notConfirmed: count(stdout, /not confirmed: ([\d,]+) records/),
        failedJobs: count(stdout, /jobs failed permanently: ([\d,]+)/),
        stdout,
        stderr,
        ms: Date.now() - started,
      })
    })
  })
  running.add(child)
  void done.finally(() => running.delete(child)).catch(() => undefined)
  return { done, finished: () => over, kill: () => child.kill('SIGKILL') }
}

export async function runBackfillToEnd(args: string[], env: Record<string, string>): Promise<BackfillOutcome> {
  return startBackfill(args, env).done
}
