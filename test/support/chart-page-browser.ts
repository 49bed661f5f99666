import { existsSync } from 'node:fs'
import { chromium, type Browser, type Page } from 'playwright-core'

/** Debian's chromium package (`apt-get install chromium`); .ci/run installs it. */
export const CHROMIUM_PATH = '/usr/bin/chromium'

export function chromiumInstalled(): boolean {
  return existsSync(CHROMIUM_PATH)
}

/** How many points each series of the chart holds (price-chart.js `counts()`), and its price lines and panes. */
export interface ChartCounts {
  candles: number
  volume: number
  ma50: number
  ma100: number
  ma200: number
  rsi: number
  macd: number
  pivotLines: number
  panes: number
}

/** What the page reports on `window.chartPage` (api/chart-page/page/main.js). */
export interface ChartPageStatus {
  state: 'loading' | 'ready'
  address: string | null
  symbol: string | null
  /** Zero until a token's candles are drawn; empty when the chart library could not be loaded. */
  chart: ChartCounts
  /** The newest candle drawn (the one in progress), null before a token's candles are. */
  latestCandle: { time: number; close: number; volume: number } | null
  holders: number
  swaps: number
  errors: string[]
  /** Times the stream's swaps had the panels read again. */
  liveUpdates: number
}

export interface ChartPageSession {
  browser: Browser
  page: Page
  /** Uncaught exceptions and console errors of the page, in order. */
  problems: string[]
  close(): Promise<void>
}

/**
 * A headless chromium on the chart page of `baseUrl`, 1440×1100 (the README's screenshot
 * size). `beforeLoad` runs before the page is requested (e.g. to make a request fail).
 */
export async function openChartPage(
  baseUrl: string,
  path = '/',
  beforeLoad?: (page: Page) => Promise<unknown>,
): Promise<ChartPageSession> {
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: ['--no-sandbox'] })
  try {
    const page = await browser.newPage({ viewport: { width: 1440, height: 1100 }, deviceScaleFactor: 1 })
    const problems: string[] = []
    page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`))
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`)
    })
    await beforeLoad?.(page)
    await page.goto(`${baseUrl}${path}`)
    return { browser, page, problems, close: () => browser.close() }
  } catch (err) {
    await browser.close()
    throw err
  }
}

export async function pageStatus(page: Page): Promise<ChartPageStatus> {
  return page.evaluate(() => (window as unknown as { chartPage: ChartPageStatus }).chartPage)
}

/** Waits until the page has finished loading a token (every panel answered, well or not). */
export async function waitUntilReady(page: Page, address?: string): Promise<ChartPageStatus> {
  await page.waitForFunction(
    (expected) => {
      const status = (window as unknown as { chartPage?: ChartPageStatus }).chartPage
      return status?.state === 'ready' && (expected === null || status.address === expected)
    },
    address ?? null,
    { timeout: 30_000 },
  )
  return pageStatus(page)
}

/** Types `query` in the search box, waits for its suggestions, takes the first with Enter. */
export async function searchAndPick(page: Page, query: string): Promise<string> {
  const input = page.locator('#token-query')
  await input.fill(query)
  const first = page.locator('#token-suggestions li').first()
  await first.waitFor({ state: 'visible' })
  const address = await first.getAttribute('data-address')
  if (address === null) throw new Error(`no suggestion for ${query}`)
  await input.press('Enter')
  return address
}

/** Rows of a table's body, not counting the placeholder row ("Loading…", "No …"). */
export async function tableRows(page: Page, tableId: string): Promise<number> {
  return page.locator(`#${tableId} tbody tr:not(.empty)`).count()
}

/**
 * Pixels of the chart's canvases in the candle colours (up and down), i.e. what the
 * candlestick series actually painted: zero when no candle was drawn.
 */
export async function candlePixels(page: Page): Promise<number> {
  return page.evaluate(() => {
    const targets = [
      [22, 163, 74],
      [220, 38, 38],
    ]
    let count = 0
    for (const canvas of Array.from(document.querySelectorAll<HTMLCanvasElement>('#chart canvas'))) {
      const context = canvas.getContext('2d')
      if (!context || canvas.width === 0 || canvas.height === 0) continue
      const { data } = context.getImageData(0, 0, canvas.width, canvas.height)
      for (let i = 0; i < data.length; i += 4) {
        if (data[i + 3]! < 250) continue
        for (const [r, g, b] of targets) {
          if (Math.abs(data[i]! - r!) < 4 && Math.abs(data[i + 1]! - g!) < 4 && Math.abs(data[i + 2]! - b!) < 4) count++
        }
      }
    }
    return count
  })
}
