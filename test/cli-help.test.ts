import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { demoArguments } from '../devnet/demo-arguments.js'
import { loadConfig } from '../shared/platform/config.js'

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

describe('the chain commands explain themselves too', () => {
  it.each(['devnet', 'follow', 'demo'])('npm run --silent %s -- --help: usage and exit codes on stdout, exit 0, nothing started', async (script) => {
    const out = await npmRun(['--silent'], script, '--help')
    expect(out.code).toBe(0)
    expect(out.stdout).toMatch(new RegExp(`^usage: npm run ${script} --`, 'i'))
    expect(out.stdout).toMatch(/exit codes:?\s*\n?\s*0 /i)
    expect(out.stderr).toBe('')
  })

  it.each(['devnet', 'follow', 'demo'])('npm run --silent %s -- --bogus: exit 2, one line and the short usage on stderr, no stack trace', async (script) => {
    const out = await npmRun(['--silent'], script, '--bogus')
    expect(out.code).toBe(2)
    expect(out.stdout).toBe('')
    expect(out.stderr).toMatch(new RegExp(`^${script}: Unknown option '--bogus'\\nusage: npm run ${script} -- [^\\n]*\\(--help for more\\)\\n$`))
  })

  it.each([
    ['devnet', ['--wallets', '0'], /^devnet: --wallets must be an integer from 1 to 100000 \(got "0"\)\n/],
    ['follow', ['--from-block', 'latest'], /^follow: --from-block must be an integer from 0 to \d+ \(got "latest"\)\n/],
    ['demo', ['--port', 'http'], /^demo: --port must be an integer from 1 to 65535 \(got "http"\)\n/],
  ])('npm run --silent %s -- %s: a malformed value is exit 2 naming the option', async (script, args, message) => {
    const out = await npmRun(['--silent'], script, ...args)
    expect(out.code).toBe(2)
    expect(out.stdout).toBe('')
    expect(out.stderr).toMatch(message)
    expect(out.stderr).not.toMatch(/\n\s+at /)
  })

  /** As npmRun, with these environment variables changed (undefined removes one). */
  function npmRunWithEnv(env: Record<string, string | undefined>, script: string) {
    const merged: NodeJS.ProcessEnv = { ...process.env, ...env }
    for (const [name, value] of Object.entries(env)) if (value === undefined) delete merged[name]
    return run('npm', ['run', '--silent', script], { timeout: 60_000, env: merged }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
    )
  }

  it('npm run demo reads PORT through the configuration: a malformed PORT is exit 2 naming it, before anything starts', async () => {
    const out = await npmRunWithEnv({ PORT: 'http' }, 'demo')
    expect(out.code).toBe(2)
    expect(out.stdout).toBe('')
    expect(out.stderr).toMatch(/^demo: Invalid configuration: PORT: /)
  })

  it("the demo's port: PORT from the environment, else 3000; --port wins", () => {
    const defaults = { port: undefined, 'rpc-port': '8545', wallets: '100' }
    expect(demoArguments(defaults, loadConfig({ PORT: '4123' }).port)).toEqual({ port: 4123, rpcPort: 8545, wallets: 100 })
    expect(demoArguments(defaults, loadConfig({}).port).port).toBe(3000)
    expect(demoArguments({ ...defaults, port: '5000' }, loadConfig({ PORT: '4123' }).port).port).toBe(5000)
  })

  it('npm run follow without RPC_URL: exit 2 saying so, nothing followed', async () => {
    const out = await npmRunWithEnv({ RPC_URL: undefined }, 'follow')
    expect(out.code).toBe(2)
    expect(out.stdout).toBe('')
    expect(out.stderr).toMatch(/^follow: RPC_URL is not set/)
  })
})
