import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

const run = promisify(execFile)

/** `npm run [--silent] SCRIPT -- ARGS` as a user types it, with its exit code and both streams. */
function npmRun(npmOptions: string[], script: string, ...args: string[]) {
  return run('npm', ['run', ...npmOptions, script, '--', ...args], { timeout: 60_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
  )
}

describe('every command explains itself', () => {
  it.each(['backfill', 'indicators', 'dead-letters'])('npm run --silent %s -- --help: usage and exit codes on stdout, exit 0', async (script) => {
    const out = await npmRun(['--silent'], script, '--help')
    expect(out.code).toBe(0)
    expect(out.stdout).toMatch(new RegExp(`^usage: npm run (--silent )?${script} --`, 'i'))
    expect(out.stdout).toMatch(/exit codes:?\s*\n?\s*0 /i)
    // Nothing but the help: no npm banner, nothing on stderr.
    expect(out.stdout).not.toContain('> smart-money-token-service')
    expect(out.stderr).toBe('')
  })

  it('-h is --help too', async () => {
    const out = await npmRun(['--silent'], 'indicators', '-h')
    expect(out.code).toBe(0)
    expect(out.stdout).toMatch(/^Usage: npm run --silent indicators/)
  })

  it('without --silent npm prints its banner on stdout first (why the README says --silent for output read by a program)', async () => {
    const out = await npmRun([], 'indicators', '--help')
    expect(out.code).toBe(0)
    expect(out.stdout).toMatch(/^\s*> smart-money-token-service@[^\n]* indicators\n/)
  })

  it('a mistake in the arguments: exit 2, the mistake and a short usage on stderr, nothing on stdout', async () => {
    const out = await npmRun(['--silent'], 'indicators', '--tokens', '0x1')
    expect(out.code).toBe(2)
    expect(out.stdout).toBe('')
    expect(out.stderr).toMatch(/^indicators: Unknown option '--tokens'/)
    expect(out.stderr).toMatch(/\nusage: npm run indicators -- --all \| --token ADDRESS \[--timeout SECONDS\] {3}\(--help for more\)\n$/)
  })
})
