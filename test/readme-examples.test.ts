import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSampleService, type SampleService } from './support/sample-service.js'

const run = promisify(execFile)
const README = new URL('../README.md', import.meta.url)
const DOCUMENTED_BASE = 'http://localhost:3000'

/** Examples that show an error on purpose, by a part of their line, with the status they show. */
const EXPECTED_ERRORS: readonly { part: string; status: number }[] = [
  { part: 'holdings?wallet_address=', status: 400 }, // an unknown parameter, named in the 400
  { part: 'cursor=eyJ2IjoxLCJ0Ijo...', status: 400 }, // an elided cursor, shown for its shape
]

interface Example {
  /** 1-based line of the README. */
  line: number
  text: string
  /** The shell lines before it in its block (variables such as NOW=...). */
  setup: string[]
}

/** Every `curl` line against the documented base URL, in the README's shell blocks. */
function readmeExamples(): Example[] {
  const lines = readFileSync(README, 'utf8').split('\n')
  const examples: Example[] = []
  let fenced = false
  let shell = false
  let setup: string[] = []
  lines.forEach((raw, i) => {
    const line = raw.trim()
    if (line.startsWith('```')) {
      fenced = !fenced
      shell = fenced && /^```(sh|bash|shell)?$/.test(line)
      setup = []
      return
    }
    if (!shell || line === '' || line.startsWith('#')) return
    if (line.startsWith('curl ') && line.includes(DOCUMENTED_BASE)) examples.push({ line: i + 1, text: line, setup: [...setup] })
    else if (/^[A-Z_]+=/.test(line)) setup.push(line)
  })
  return examples
}

/**
 * Every curl example of the README, run as written (through bash, so its shell arithmetic
 * and variables work) against the service on the sample data, with the documented base
 * URL pointed at the test's server: each answers 200 with the JSON envelope (or the CSV it
 * asks for), except the few that show an error on purpose.
 */
describe('the README examples', () => {
  let service: SampleService
  let workDir: string
  const examples = readmeExamples()

  beforeAll(async () => {
    service = await startSampleService()
    workDir = mkdtempSync(join(tmpdir(), 'readme-examples-'))
  }, 300_000)

  afterAll(async () => {
    await service?.stop()
    if (workDir) rmSync(workDir, { recursive: true, force: true })
  })

  it('finds the examples', () => {
    expect(examples.length).toBeGreaterThan(20)
  })

  it.each(examples.map((e) => [e.line, e] as const))('README line %i runs', async (_line, example) => {
    const command = example.text.replaceAll(DOCUMENTED_BASE, service.baseUrl)
    // The status goes to stderr (curl's %{stderr}), so a line that redirects its body to a file still reports it.
    const script = [...example.setup, `${command} -s -w '%{stderr}@@status %{http_code}'`].join('\n')
    const { stdout, stderr } = await run('bash', ['-c', script], { cwd: workDir, maxBuffer: 64 * 1024 * 1024 })
    const status = Number(/@@status (\d{3})/.exec(stderr)?.[1])
    const expected = EXPECTED_ERRORS.find((e) => example.text.includes(e.part))?.status ?? 200
    expect(status, `${example.text}\n${stdout.slice(0, 400)}`).toBe(expected)
    if (/>\s*\S+$/.test(example.text) || example.text.includes('format=csv')) return
    const body = JSON.parse(stdout) as { status: string }
    expect(body.status).toBe(expected === 200 ? 'success' : 'error')
  })
})
