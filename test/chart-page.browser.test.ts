import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { request } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  candlePixels,
  CHROMIUM_PATH,
  chromiumInstalled,
  openChartPage,
  pageStatus,
  searchAndPick,
  tableRows,
  waitUntilReady,
  type ChartPageSession,
} from './support/chart-page-browser.js'
import { IngestProducer } from '../shared/records/ingest-producer.js'
import { getJson } from './support/http.js'
import { SAMPLE_WETH, startSampleService, type SampleService } from './support/sample-service.js'

const WBTC = '0x2260fac5e5542a773aa44fbcfedf7c193bc2c599'
/** In the token list, never traded in the sample: no candles, holders or swaps. */
const ANCIENT8 = '0x3e5a19c91266ad8ce2477b91585d1856b84062df'
const UNKNOWN = '0x00000000000000000000000000000000000000aa'
const USDC = '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48'

interface TextResponse {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

function getText(url: string): Promise<TextResponse> {
  return new Promise((resolve, reject) => {
    request(url, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('error', reject)
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }))
    })
      .on('error', reject)
      .end()
  })
}

let service: SampleService

beforeAll(async () => {
  service = await startSampleService()
}, 180_000)
afterAll(async () => {
  await service?.stop()
})

describe('GET / and its assets', () => {
  it('serves the page, its modules and the chart library from this origin, with a same-origin CSP', async () => {
    const page = await getText(`${service.baseUrl}/`)
    expect(page.status).toBe(200)
    expect(page.headers['content-type']).toMatch(/^text\/html/)
    expect(page.headers['content-security-policy']).toContain("default-src 'self'")
    expect(page.body).toContain('<script type="module" src="/chart-page/main.js"></script>')
    // Nothing from another origin: every src and href is a path of ours (or the empty icon).
    for (const [, url] of page.body.matchAll(/(?:src|href)="([^"]+)"/g)) expect(url).toMatch(/^(\/chart-page\/|data:,$)/)

    const library = await getText(`${service.baseUrl}/chart-page/vendor/lightweight-charts.mjs`)
    expect(library.status).toBe(200)
    expect(library.headers['content-type']).toMatch(/^text\/javascript/)
    expect(library.body).toContain('TradingView Lightweight Charts')
    expect(library.body).toContain('createChart')

    for (const file of ['main.js', 'price-chart.js', 'tables.js', 'token-picker.js', 'api-client.js', 'format.js', 'chart-page.css']) {
      const asset = await getText(`${service.baseUrl}/chart-page/${file}`)
      expect(asset.status, file).toBe(200)
      // The modules import each other and the library by path only, never from elsewhere.
      for (const [, from] of asset.body.matchAll(/from '([^']+)'/g)) expect(from).toMatch(/^(\.\/|\/chart-page\/)/)
    }
  })

  it('answers an unknown asset with the JSON 404 of any unknown path', async () => {
    const missing = await getJson(`${service.baseUrl}/chart-page/missing.js`)
    expect(missing.status).toBe(404)
    expect(missing.body).toEqual({ status: 'error', message: 'No such endpoint: GET /chart-page/missing.js' })
    const traversal = await getJson(`${service.baseUrl}/chart-page/..%2F..%2Fchart-page-route.ts`)
    expect(traversal.status).toBe(404)
  })
})

const skipReason = `chromium is not installed at ${CHROMIUM_PATH} (apt-get install -y chromium; .ci/run installs it)`
const browserTitle = chromiumInstalled()
  ? 'the chart page in chromium, on the sample data'
  : `the chart page in chromium — SKIPPED: ${skipReason}`
// Shown by the default reporter, which does not list skipped tests by name.
if (!chromiumInstalled()) console.warn(`SKIPPED the chart page's browser tests: ${skipReason}`)

describe.skipIf(!chromiumInstalled())(browserTitle, () => {
  let session: ChartPageSession
  let screenshots: string

  beforeAll(async () => {
    screenshots = mkdtempSync(join(tmpdir(), 'chart-page-'))
    session = await openChartPage(service.baseUrl)
  }, 60_000)
  afterAll(async () => {
    await session?.close()
    rmSync(screenshots, { recursive: true, force: true })
  })

  it('opens on the token the tracked wallets hold most of, drawn in full', async () => {
    const status = await waitUntilReady(session.page)
    const top = (await getJson(`${service.baseUrl}/holdings?limit=1`)).body.result[0].token
    expect(status.address).toBe(top.contract_address)
    expect(status.symbol).toBe(top.symbol)
    expect(status.errors).toEqual([])
    expect(status.chart.candles).toBeGreaterThan(300)
  })

  it('finds a token by symbol and draws its candles, averages, RSI, MACD, pivots, holders and swaps', async () => {
    const { page } = session
    expect(await searchAndPick(page, 'wbtc')).toBe(WBTC)
    const status = await waitUntilReady(page, WBTC)
    expect(status.errors).toEqual([])
    expect(await page.locator('#token-symbol').textContent()).toBe('WBTC')
    expect(page.url()).toBe(`${service.baseUrl}/#${WBTC}`)

    // Every closed candle the API has, and the one in progress (up to the page's 1,000), is in the chart, and painted.
    const closed = (await getJson(`${service.baseUrl}/tokens/${WBTC}/candles?limit=1`)).body.pagination.total
    expect(closed).toBeGreaterThan(300)
    expect(status.chart.candles).toBe(Math.min(closed + 1, 1000))
    expect(status.chart.volume).toBe(status.chart.candles)
    expect(await candlePixels(page)).toBeGreaterThan(1000)
    // The indicators are of closed candles: an average has a value from its 50th/100th/200th candle on; RSI from the 15th; MACD from the 34th.
    expect(status.chart.ma50).toBe(closed - 49)
    expect(status.chart.ma100).toBe(closed - 99)
    expect(status.chart.ma200).toBe(closed - 199)
    expect(status.chart.rsi).toBe(closed - 14)
    expect(status.chart.macd).toBe(closed - 33)
    expect(status.chart.pivotLines).toBe(5)
    expect(status.chart.panes).toBe(3)

    const holders = (await getJson(`${service.baseUrl}/holdings/token/${WBTC}?limit=25`)).body
    expect(holders.result.length).toBeGreaterThan(0)
    expect(await tableRows(page, 'holders')).toBe(holders.result.length)
    expect(status.holders).toBe(holders.result.length)
    const firstWallet = await page.locator('#holders tbody tr').first().locator('code').getAttribute('title')
    expect(firstWallet).toBe(holders.result[0].wallet_address)

    const swaps = (await getJson(`${service.baseUrl}/swap-transactions?start_time=0&end_time=${Date.now()}&token_id=${WBTC}&limit=25`)).body
    expect(swaps.result.length).toBe(25)
    expect(await tableRows(page, 'swaps')).toBe(25)
    const firstSwapHash = await page.locator('#swaps tbody tr').first().locator('td.time').getAttribute('title')
    expect(firstSwapHash).toBe(swaps.result[0].hash)

    const file = join(screenshots, 'chart-page-wbtc.png')
    await page.screenshot({ path: file })
    expect(readFileSync(file).subarray(1, 4).toString('latin1')).toBe('PNG')
    expect(statSync(file).size).toBeGreaterThan(50_000)
    expect(session.problems).toEqual([])
  })

  it('takes a full contract address in the search box', async () => {
    const { page } = session
    await page.locator('#token-query').fill(SAMPLE_WETH.toUpperCase().replace('0X', '0x'))
    await page.locator('#token-query').press('Enter')
    const status = await waitUntilReady(page, SAMPLE_WETH)
    expect(status.symbol).toBe('WETH')
    expect(status.chart.candles).toBeGreaterThan(300)
  })

  it("shows the API's own messages for a token without candles", async () => {
    const { page } = session
    await page.goto(`${service.baseUrl}/#${ANCIENT8}`)
    const status = await waitUntilReady(page, ANCIENT8)
    const ta = await getJson(`${service.baseUrl}/technical-analysis?contract_address=${ANCIENT8}`)
    expect(ta.status).toBe(404)
    expect(status.errors).toContain(ta.body.message)
    expect(await page.locator('#chart-error').textContent()).toContain(ta.body.message)
    expect(status.chart.candles).toBe(0)
    expect(await tableRows(page, 'holders')).toBe(0)
    expect(await page.locator('#holders tbody').textContent()).toContain('No tracked wallet holds this token.')
  })

  it("shows the API's own messages for an unknown address, in each panel", async () => {
    const { page } = session
    await page.goto(`${service.baseUrl}/#${UNKNOWN}`)
    const status = await waitUntilReady(page, UNKNOWN)
    const token = await getJson(`${service.baseUrl}/tokens/${UNKNOWN}`)
    const holders = await getJson(`${service.baseUrl}/holdings/token/${UNKNOWN}`)
    expect(token.status).toBe(404)
    expect(await page.locator('#page-error').textContent()).toBe(token.body.message)
    expect(await page.locator('#page-error').isVisible()).toBe(true)
    expect(await page.locator('#holders-error').textContent()).toBe(holders.body.message)
    expect(await page.locator('#chart-error').isVisible()).toBe(true)
    expect((await pageStatus(page)).chart.candles).toBe(0)
    expect(status.errors.length).toBeGreaterThanOrEqual(3)
  })

  it('still shows the tables, and says why, when the chart library cannot be loaded', async () => {
    const broken = await openChartPage(service.baseUrl, `/#${WBTC}`, (page) =>
      page.route('**/chart-page/vendor/lightweight-charts.mjs', (route) => route.abort('connectionfailed')),
    )
    try {
      const status = await waitUntilReady(broken.page, WBTC)
      expect(await broken.page.locator('#chart-error').textContent()).toMatch(/^The chart library could not be loaded: /)
      expect(status.errors).toHaveLength(1)
      expect(status.chart).toEqual({})
      expect(await tableRows(broken.page, 'holders')).toBeGreaterThan(0)
      expect(await tableRows(broken.page, 'swaps')).toBe(25)
      expect(await broken.page.locator('#stat-close').textContent()).toMatch(/^\$[\d,]+\.\d\d$/)
    } finally {
      await broken.close()
    }
  })

  it('shows a swap stored after the page opened, and its candle, without a reload', async () => {
    const { page } = session
    await page.goto(`${service.baseUrl}/#${SAMPLE_WETH}`)
    const before = await waitUntilReady(page, SAMPLE_WETH)
    const [latest] = (await getJson(`${service.baseUrl}/swap-transactions?start_time=0&end_time=${Date.now()}&limit=1`)).body.result
    const hash = `0x${'1ee7'.repeat(16)}`
    const producer = new IngestProducer(service.runtime.config)
    try {
      await producer.send('swap', {
        hash,
        block_number: 30_000_000,
        timestamp: Date.now(),
        wallet_address: latest.wallet_address,
        token_sold: { contract_address: USDC, amount_raw: '3000000000' },
        token_bought: { contract_address: SAMPLE_WETH, amount_raw: '1000000000000000000' },
        value_usd: 3000,
        dex: 'uniswap_v3',
      })
    } finally {
      await producer.close()
    }
    await expect.poll(async () => (await pageStatus(page)).liveUpdates, { timeout: 20_000 }).toBeGreaterThan(before.liveUpdates)
    await expect.poll(() => page.locator('#swaps tbody tr td.time').first().getAttribute('title'), { timeout: 10_000 }).toBe(hash)
    const after = await pageStatus(page)
    expect(after.latestCandle!.time).toBe(before.latestCandle!.time)
    expect(after.latestCandle!.volume).toBeCloseTo(before.latestCandle!.volume + 3000, 6)
    expect(after.latestCandle!.close).toBeCloseTo(3000, 6)
    expect(page.url()).toBe(`${service.baseUrl}/#${SAMPLE_WETH}`)
  })

  it('says so when a search matches nothing', async () => {
    const { page } = session
    await page.locator('#token-query').fill('zzzz-no-such-token')
    await page.locator('#token-query').press('Enter')
    await expect.poll(() => page.locator('#page-error').textContent()).toContain('No token matches "zzzz-no-such-token"')
  })
})
