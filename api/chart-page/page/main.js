// The chart page: one token at a time (its address in the URL's #fragment), every panel
// filled from the public API, each panel showing the API's message when its call fails.

import { getEnvelope, getResult } from './api-client.js'
import { formatNumber, formatPercent, formatPrice, formatTime, formatUsd } from './format.js'
import { renderHolders, renderLoading, renderSwaps } from './tables.js'
import { loadTokenDirectory, wireTokenPicker } from './token-picker.js'

const CANDLES = 1000
const HOLDERS = 25
const SWAPS = 25
/** Six 4-hour candles: the 24-hour change. */
const DAY_IN_CANDLES = 6
const ADDRESS = /^0x[0-9a-fA-F]{40}$/
/** After a stored swap of the shown token, its panels are read again once the stream has been quiet this long. */
const LIVE_QUIET_MS = 400

/** @param {string} id */
const byId = (id) => /** @type {HTMLElement} */ (document.getElementById(id))

/**
 * What the page shows, for a reader of `window.chartPage` (the browser test among them).
 * @type {{state: 'loading' | 'ready', address: string | null, symbol: string | null,
 *         chart: Record<string, number>, latestCandle: {time: number, close: number, volume: number} | null,
 *         holders: number, swaps: number, errors: string[], liveUpdates: number}}
 * `chart` holds the chart's counts (price-chart.js) once a token is shown, `latestCandle` its
 * newest candle (the one in progress); `liveUpdates` counts the times the stream's swaps
 * redrew the panels.
 */
const status = { state: 'loading', address: null, symbol: null, chart: {}, latestCandle: null, holders: 0, swaps: 0, errors: [], liveUpdates: 0 }
Object.assign(window, { chartPage: status })

/**
 * The chart, or null when its library could not be loaded (imported here rather than
 * statically, so the tables and the API's messages still work without it).
 * @type {ReturnType<typeof import('./price-chart.js').createPriceChart> | null}
 */
let chart = null
/** Why the chart library could not be loaded, or null. */
let chartProblem = null
/** @type {import('./token-picker.js').Token[]} */
let directory = []
let generation = 0
/** The stream of the shown token's stored swaps (GET /stream/swaps), closed when another token is shown. @type {EventSource | null} */
let live = null

/**
 * Adds a message to a panel's error box (a panel fed by several calls may show several);
 * null empties and hides it.
 * @param {string} id
 * @param {string | null} message
 */
function showError(id, message) {
  const box = byId(id)
  if (message === null) {
    box.replaceChildren()
    box.hidden = true
    return
  }
  const line = document.createElement('div')
  line.textContent = message
  box.append(line)
  box.hidden = false
  status.errors.push(message)
}

/** @param {unknown} err */
const messageOf = (err) => (err instanceof Error ? err.message : String(err))

/**
 * A panel's load, its failure shown in the panel's error box unless another token was picked since.
 * @param {() => boolean} current
 */
const guard = (current) => /** @param {string} panel @param {Promise<void>} work */ (panel, work) =>
  work.catch((err) => {
    if (current()) showError(panel, messageOf(err))
  })

/** @param {string} id @param {string} text @param {string} [tone] */
function setStat(id, text, tone) {
  const cell = byId(id)
  cell.textContent = text
  cell.className = tone ?? ''
}

function resetPanels() {
  for (const id of ['page-error', 'chart-error', 'holders-error', 'swaps-error']) showError(id, null)
  status.errors = []
  if (chartProblem !== null) showError('chart-error', chartProblem)
  chart?.clear()
  for (const id of ['stat-close', 'stat-change', 'stat-rsi', 'stat-macd', 'stat-pivot', 'stat-volume']) setStat(id, '—')
  byId('ta-note').textContent = ''
  byId('holders-count').textContent = ''
  byId('swaps-count').textContent = ''
  renderLoading(/** @type {HTMLTableSectionElement} */ (document.querySelector('#holders tbody')), 4)
  renderLoading(/** @type {HTMLTableSectionElement} */ (document.querySelector('#swaps tbody')), 6)
}

/** @param {{symbol: string | null, name: string | null, contract_address: string} | null} token @param {string} address */
function showToken(token, address) {
  byId('token-symbol').textContent = token?.symbol ?? 'Unknown token'
  byId('token-name').textContent = token?.name ?? ''
  byId('token-address').textContent = address
  document.title = `${token?.symbol ?? address} · Smart-money tokens`
  status.symbol = token?.symbol ?? null
}

/**
 * @param {string} address
 * @param {() => boolean} current false once another token was picked
 */
async function loadChart(address, current) {
  const [candles, history] = await Promise.all([
    getResult(`/tokens/${address}/candles`, { interval: '4h', limit: CANDLES, in_progress: 'true' }),
    getResult('/technical-analysis/history', { contract_address: address, limit: CANDLES }),
  ])
  if (!current()) return
  if (candles.length === 0) {
    showError('chart-error', 'No closed 4-hour candle for this token yet: it has no price observations or swaps.')
    return
  }
  chart?.setData(candles, history)
  const last = candles[candles.length - 1]
  status.latestCandle = { time: last.time, close: last.close, volume: last.volume }
  const dayAgo = candles[Math.max(0, candles.length - 1 - DAY_IN_CANDLES)]
  setStat('stat-close', formatPrice(last.close))
  const change = dayAgo.close > 0 ? last.close / dayAgo.close - 1 : null
  setStat('stat-change', formatPercent(change), change === null ? '' : change >= 0 ? 'up' : 'down')
}

/** @param {string} address @param {() => boolean} current */
async function loadTechnicalAnalysis(address, current) {
  const envelope = await getEnvelope('/technical-analysis', { contract_address: address })
  if (!current()) return
  const ta = envelope.result
  chart?.setPivots(ta.pivotPoints)
  setStat('stat-rsi', formatNumber(ta.rsi, 1), ta.rsi === null ? '' : ta.rsi >= 70 ? 'down' : ta.rsi <= 30 ? 'up' : '')
  const histogram = ta.macd?.histogram ?? null
  setStat('stat-macd', formatNumber(histogram, 4), histogram === null ? '' : histogram >= 0 ? 'up' : 'down')
  setStat('stat-pivot', formatPrice(ta.pivotPoints?.keyLevel))
  setStat('stat-volume', formatUsd(ta.pivotPoints?.volume24))
  byId('ta-note').textContent =
    `Pivot levels, RSI and MACD as of the candle of ${formatTime(ta.candleTime)} UTC ` +
    `(${ta.candleCount} candles, computed ${formatTime(ta.timestamp)} UTC).`
}

/** @param {string} address @param {() => boolean} current */
async function loadHolders(address, current) {
  const envelope = await getEnvelope(`/holdings/token/${address}`, { limit: HOLDERS })
  if (!current()) return
  renderHolders(/** @type {HTMLTableSectionElement} */ (document.querySelector('#holders tbody')), envelope.result)
  byId('holders-count').textContent = `${envelope.result.length} of ${envelope.pagination.total}`
  status.holders = envelope.result.length
}

/** @param {string} address @param {string} tokenId @param {() => boolean} current */
async function loadSwaps(address, tokenId, current) {
  const envelope = await getEnvelope('/swap-transactions', { start_time: 0, end_time: Date.now(), token_id: tokenId, limit: SWAPS })
  if (!current()) return
  renderSwaps(/** @type {HTMLTableSectionElement} */ (document.querySelector('#swaps tbody')), envelope.result, address)
  byId('swaps-count').textContent = `latest ${envelope.result.length} of ${envelope.pagination.total}`
  status.swaps = envelope.result.length
}

/** Shows one token: every panel loads on its own, and a failed one shows the API's message. @param {string} address */
async function show(address) {
  const mine = ++generation
  const current = () => mine === generation
  Object.assign(status, { state: 'loading', address, symbol: null, chart: chart?.counts() ?? {}, latestCandle: null, holders: 0, swaps: 0 })
  document.body.dataset.state = 'loading'
  resetPanels()
  showToken(directory.find((t) => t.contract_address === address) ?? null, address)

  const guarded = guard(current)
  const token = getResult(`/tokens/${address}`).then(
    (t) => {
      if (current()) showToken(t, address)
      return t
    },
    (err) => {
      if (current()) showError('page-error', messageOf(err))
      return null
    },
  )
  await Promise.all([
    guarded('chart-error', loadChart(address, current)),
    guarded('chart-error', loadTechnicalAnalysis(address, current)),
    guarded('holders-error', loadHolders(address, current)),
    // A token's swaps are filtered by its id (the address unless its producer gave another).
    guarded('swaps-error', token.then((t) => loadSwaps(address, t?.id ?? address, current))),
  ])
  if (!current()) return
  status.chart = chart?.counts() ?? {}
  status.state = 'ready'
  document.body.dataset.state = 'ready'
  followLive(address, (await token)?.id ?? address, current)
}

/**
 * Keeps the shown token's swaps, candles and indicators current: each stored swap of it (or
 * retraction) on the stream has them read again, once the stream is quiet for LIVE_QUIET_MS.
 * EventSource reconnects by itself and resumes after the last event it saw.
 * @param {string} address @param {string} tokenId @param {() => boolean} current
 */
function followLive(address, tokenId, current) {
  live?.close()
  live = null
  if (typeof EventSource === 'undefined') return
  const source = new EventSource(`/stream/swaps?token_id=${encodeURIComponent(tokenId)}`)
  live = source
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let quiet
  const redraw = async () => {
    if (!current()) return source.close()
    const guarded = guard(current)
    await Promise.all([
      guarded('chart-error', loadChart(address, current)),
      guarded('chart-error', loadTechnicalAnalysis(address, current)),
      guarded('swaps-error', loadSwaps(address, tokenId, current)),
    ])
    if (!current()) return
    status.chart = chart?.counts() ?? {}
    status.liveUpdates++
  }
  const changed = () => {
    clearTimeout(quiet)
    quiet = setTimeout(() => void redraw(), LIVE_QUIET_MS)
  }
  source.addEventListener('swap', changed)
  source.addEventListener('retraction', changed)
}

/** The token named in the URL, or the one the tracked wallets hold most of, or the first token. */
async function initialAddress() {
  const fromUrl = decodeURIComponent(location.hash.slice(1))
  if (ADDRESS.test(fromUrl)) return fromUrl.toLowerCase()
  try {
    const [top] = await getResult('/holdings', { limit: 1 })
    if (top?.token?.contract_address) return top.token.contract_address
  } catch (err) {
    showError('page-error', messageOf(err))
  }
  return directory[0]?.contract_address ?? null
}

/** @param {string} address */
function pick(address) {
  if (location.hash.slice(1).toLowerCase() === address) void show(address)
  else location.hash = address
}

async function loadChartLibrary() {
  try {
    const { createPriceChart } = await import('./price-chart.js')
    chart = createPriceChart(byId('chart'))
  } catch (err) {
    chartProblem = `The chart library could not be loaded: ${messageOf(err)}`
  }
}

async function start() {
  await loadChartLibrary()
  wireTokenPicker({
    form: /** @type {HTMLFormElement} */ (byId('token-search')),
    input: /** @type {HTMLInputElement} */ (byId('token-query')),
    list: /** @type {HTMLUListElement} */ (byId('token-suggestions')),
    tokens: () => directory,
    onPick: pick,
    onMiss: (query) => {
      showError('page-error', null)
      showError('page-error', `No token matches "${query}" (search by symbol, name or full 0x… contract address).`)
    },
  })
  window.addEventListener('hashchange', () => {
    const address = decodeURIComponent(location.hash.slice(1)).toLowerCase()
    if (ADDRESS.test(address)) void show(address)
  })
  try {
    directory = await loadTokenDirectory()
  } catch (err) {
    showError('page-error', `Token search is unavailable: ${messageOf(err)}`)
  }
  const address = await initialAddress()
  if (address) {
    await show(address)
  } else {
    // Unless the API refused to list them (its message is shown already).
    if (status.errors.length === 0) showError('page-error', 'The service holds no token yet.')
    status.state = 'ready'
    document.body.dataset.state = 'ready'
  }
}

void start()
