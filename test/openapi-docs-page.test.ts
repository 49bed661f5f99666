import { chromium, type Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openApiDocument } from '../api/contract/openapi-document.js'
import { startTestApi, type TestApi } from './support/http.js'
import { CHROMIUM_PATH, chromiumInstalled } from './support/chart-page-browser.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

const hasChromium = chromiumInstalled()
if (!hasChromium) console.warn(`skipping the /docs browser test: no chromium at ${CHROMIUM_PATH} (apt-get install -y chromium)`)

describe.skipIf(!hasChromium)('GET /docs in a real browser', () => {
  let rt: TestRuntime
  let api: TestApi
  let browser: Browser

  beforeAll(async () => {
    rt = await createTestRuntime()
    api = await startTestApi(rt)
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: ['--no-sandbox'] })
  })
  afterAll(async () => {
    await browser?.close()
    await api?.close()
    await rt?.cleanup()
  })

  it('renders every documented operation, loading nothing from another origin', async () => {
    const page = await browser.newPage()
    const requested: string[] = []
    const problems: string[] = []
    page.on('request', (request) => requested.push(request.url()))
    page.on('pageerror', (error) => problems.push(error.message))
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text())
    })
    await page.goto(`${api.baseUrl}/docs`)
    const operations = Object.values(openApiDocument().paths ?? {}).reduce((n, item) => n + Object.keys(item ?? {}).length, 0)
    await page.waitForFunction((n) => document.querySelectorAll('.opblock').length === n, operations, { timeout: 30_000 })
    expect(await page.locator('.opblock-summary-path', { hasText: '/swap-transactions' }).count()).toBeGreaterThan(0)
    expect(requested.length).toBeGreaterThanOrEqual(4) // the page, its style, its scripts, /openapi.json
    expect(requested.filter((url) => !url.startsWith(`${api.baseUrl}/`) && !url.startsWith('data:'))).toEqual([])
    expect(requested).toContain(`${api.baseUrl}/openapi.json`)
    expect(problems).toEqual([])
    await page.close()
  })
})
