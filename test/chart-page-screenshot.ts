/**
 * `npm run screenshot [-- FILE]`: the README's picture of the chart page. Starts the
 * service on the sample data in a temporary store (as the browser test does: needs the
 * Redis at REDIS_URL and /usr/bin/chromium), opens the page on WBTC and saves a
 * 1440×1100 PNG to FILE (default docs/chart-page.png). Exit codes: 0 saved, 1 failed,
 * 2 usage.
 */
import { mkdirSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { CHROMIUM_PATH, chromiumInstalled, openChartPage, waitUntilReady } from './support/chart-page-browser.js'
import { startSampleService } from './support/sample-service.js'

const WBTC = '0x2260fac5e5542a773aa44fbcfedf7c193bc2c599'
const USAGE = 'usage: npm run screenshot [-- FILE]   (default docs/chart-page.png)'

const args = process.argv.slice(2)
if (args.includes('--help') || args.includes('-h')) {
  process.stdout.write(`${USAGE}\nSaves a screenshot of the chart page on the sample data.\nExit codes: 0 saved, 1 failed, 2 usage.\n`)
  process.exit(0)
}
if (args.length > 1) {
  process.stderr.write(`${USAGE}\n`)
  process.exit(2)
}
if (!chromiumInstalled()) {
  process.stderr.write(`chromium is not installed at ${CHROMIUM_PATH}: apt-get install -y chromium\n`)
  process.exit(1)
}
const file = resolve(args[0] ?? 'docs/chart-page.png')

const service = await startSampleService()
try {
  const session = await openChartPage(service.baseUrl, `/#${WBTC}`)
  try {
    const status = await waitUntilReady(session.page, WBTC)
    if (status.errors.length > 0 || session.problems.length > 0) {
      throw new Error(`the page reported problems: ${JSON.stringify([...status.errors, ...session.problems])}`)
    }
    // The search box holds what an analyst would have typed.
    await session.page.locator('#token-query').fill('WBTC')
    await session.page.locator('#token-query').blur()
    await session.page.locator('#token-suggestions').waitFor({ state: 'hidden' })
    mkdirSync(dirname(file), { recursive: true })
    await session.page.screenshot({ path: file })
    process.stdout.write(`saved ${file} (${status.symbol}: ${status.chart.candles} candles, ${status.holders} holders, ${status.swaps} swaps)\n`)
  } finally {
    await session.close()
  }
} finally {
  await service.stop()
}
process.exit(0)
