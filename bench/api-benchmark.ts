/**
 * `npm run bench:api`: the read API's latency and throughput on a store of realistic size,
 * each endpoint beside the raw storage call behind it and beside a hello-world Express
 * server in the same process, measured against the issue's targets.
 *
 * 1. Builds a fresh embedded store in a temp dir, inside ClickHouse (INSERT ... SELECT
 *    FROM numbers()): BENCH_SWAPS swaps (default 10,000,000) of 400 tokens by 5,000
 *    wallets over the 90 days ending now, written through swaps_incoming like ingestion
 *    writes them; a tenth of them delivered again (same hash and time, later
 *    ingested_at) in separate inserts, left unmerged; 250,000 holdings; the 400 tokens.
 * 2. Starts the API (startApiServer) and a hello-world Express app on other ports.
 * 3. One cold request per endpoint (the first ones count the swaps per hour), then per
 *    endpoint: a few warm-up requests, p50/p99 of 200 sequential requests, the p50 of
 *    200 direct calls of the repository method (or Redis read) the handler makes, and
 *    requests/s from autocannon (50 connections, 5 s, in a worker thread so the load
 *    generator does not share the servers' event loop). A series stops early after
 *    BENCH_BUDGET_S seconds (default 20; at least 10 calls); the table says when.
 * 4. Prints one markdown table and the targets; cleans up (database, Redis keys, temp dir).
 *
 * With SERVED_WALLETS=tracked, the reads serve a tracked set of BENCH_TRACKED_SHARE (0.05)
 * of the wallets, published as the indicators role would (tracked-generations.ts); the raw
 * calls read with the same scope, the wallet and hash asked for are tracked ones, and after
 * the table the first requests after a new generation (one wallet added) are timed.
 *
 * BENCH_SWAPS, BENCH_REQUESTS (200), BENCH_DURATION_S (5), BENCH_CONNECTIONS (50) and
 * BENCH_BUDGET_S (20) tune it. BENCH_STORE_DIR keeps the store in that directory and, when it
 * already holds one of BENCH_SWAPS swaps, measures it again without rebuilding (for iterating
 * on the read path; the figures to publish come from a fresh store).
 */
import { createHash, randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import type { Server, ServerResponse } from 'node:http'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { startApiServer, type ApiServer } from '../api/api-server.js'
import { FeedWatch } from '../api/feed-watch.js'
import { HoldingsRepository } from '../api/holdings-repository.js'
import { SwapHourCounts } from '../api/swap-hour-counts.js'
import { SwapsRepository, type SwapFilter } from '../api/swaps-repository.js'
import { TokenDirectory } from '../api/token-directory.js'
import { TokenPresence } from '../api/token-presence.js'
import { VersionedResults } from '../api/versioned-results.js'
import { TokenFlowsRepository } from '../api/token-flows-repository.js'
import { TokenFlowsRefreshGate } from '../api/token-flows-refresh-gate.js'
import { ScreenerRepository } from '../api/screener/screener-repository.js'
import { screenerTrackedSet } from '../api/screener/screener-tracked-set.js'
import { SmartMoneyRepository } from '../api/smart-money-repository.js'
import { TrackedWalletsFile } from '../shared/smart-money/tracked-wallets-file.js'
import { refreshTokenFlows } from '../shared/token-flows/token-flows-refresh.js'
import { openRuntime } from '../shared/bootstrap.js'
import { CANDLE_MS, closedCandles } from '../shared/candles/candles.js'
import { loadConfig } from '../shared/platform/config.js'
import { createRedis, deleteKeysWithPrefix } from '../shared/platform/redis.js'
import { SWAP_INSERT_COLUMNS, swapEntryTables, type SwapColumn } from '../shared/storage/schema/swaps-schema.js'
import { readTechnicalAnalysis, writeTechnicalAnalysis, type TechnicalAnalysis } from '../shared/candles/technical-analysis.js'
import { cannon as load, closeServer, startHelloWorld } from './load-test.js'
import { count, markdownTable, ms, percentile, seconds } from './report.js'
import { refreshCandles } from '../shared/candles/candle-refresh.js'
import { ServedWallets, type ServedScope } from '../api/served-wallets.js'
import { latestTrackedGeneration, publishTrackedGeneration } from '../shared/smart-money/tracked-generations.js'

const SWAPS = Number(process.env.BENCH_SWAPS ?? 10_000_000)
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200)
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 5)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50)
/** Each series of sequential calls stops after this long (at least MIN_SAMPLES calls), so a slow page does not take an hour. */
const BUDGET_MS = Number(process.env.BENCH_BUDGET_S ?? 20) * 1000
const MIN_SAMPLES = 10
/**
 * The load test is skipped for a page whose p50 x CONNECTIONS exceeds this: the engine
 * serves the requests of a load test one after another, and those still queued when
 * autocannon stops must be served before the next endpoint is measured.
 */
const MAX_DRAIN_MS = 60_000
const WARMUP = 5
const TOKENS = 400
const WALLETS = 5_000
const HOLDINGS_PER_WALLET = 50
const DAYS = 90
const DAY_MS = 86_400_000
/** Swaps per INSERT ... SELECT (one insert block: the views run once per chunk). */
const CHUNK = 1_000_000
/** Every REDELIVER_EVERY-th swap is delivered a second time. */
const REDELIVER_EVERY = 10
const OFFSET_DEEP = 100_000
const TRACKED_SHARE = Number(process.env.BENCH_TRACKED_SHARE ?? 0.05)

if (!Number.isSafeInteger(SWAPS) || SWAPS < OFFSET_DEEP + 1_000) {
  throw new Error(`BENCH_SWAPS must be an integer of at least ${OFFSET_DEEP + 1_000} (got ${process.env.BENCH_SWAPS})`)
}

// ---------------------------------------------------------------------------------------
// The synthetic world: addresses derive from seeds the same way in SQL and here.

const SEEDS = { wallet: 'bench-wallet-', token: 'bench-token-', swap: 'bench-swap-' }
const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex')
const walletAddress = (i: number) => `0x${sha256Hex(`${SEEDS.wallet}${i}`).slice(0, 40)}`
const tokenAddress = (i: number) => `0x${sha256Hex(`${SEEDS.token}${i}`).slice(0, 40)}`
const swapHash = (n: number) => `0x${sha256Hex(`${SEEDS.swap}${n}`)}`

/** SQL of the i-th address of a seed's list, as an array built once per query. */
const addressList = (seedParam: string, sizeParam: string) =>
  `arrayMap(i -> concat('0x', substring(lower(hex(SHA256(concat({${seedParam}:String}, toString(i))))), 1, 40)), range({${sizeParam}:UInt32}))`

const keptDir = process.env.BENCH_STORE_DIR
const dataDir = keptDir ?? mkdtempSync(join(tmpdir(), 'smartmoney-api-bench-'))
const tag = randomBytes(4).toString('hex')
// The screener's tracked wallets (GET /wallets' set): the first TRACKED_SHARE of the wallets, listed in a file.
const trackedFile = join(mkdtempSync(join(tmpdir(), 'smartmoney-api-bench-tracked-')), 'tracked-wallets.txt')
const config = loadConfig({
  ...process.env,
  TRACKED_WALLETS_FILE: trackedFile,
  CLICKHOUSE_URL: undefined,
  CLICKHOUSE_PATH: dataDir,
  CLICKHOUSE_DATABASE: keptDir === undefined ? `api_bench_${tag}` : 'api_bench_kept',
  REDIS_PREFIX: `api-bench-${tag}`,
  SAMPLE_DATA: 'false',
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
})
writeFileSync(trackedFile, Array.from({ length: Math.round(WALLETS * TRACKED_SHARE) }, (_, i) => walletAddress(i)).join('\n') + '\n')
const runtime = await openRuntime(config, 'bench')
const { clickhouse, tables } = runtime
const redis = createRedis(config.redis.url)
const buildEndMs = Date.now()
const buildStartMs = buildEndMs - DAYS * DAY_MS

/** Runs a statement, printing how long it took. */
async function timed(label: string, query: string, params: Record<string, unknown>): Promise<number> {
  const started = performance.now()
  await clickhouse.command({ query, query_params: params })
  const took = performance.now() - started
  if (label !== '') console.log(`  ${label} ${seconds(took)}`)
  return took
}

/**
 * Swaps number `from` .. `from + size - 1` of SWAPS, spread evenly over the 90 days,
 * each with random wallet, tokens, amounts and value; `every` > 1 keeps only every
 * every-th of them (the re-deliveries), delivered `ingestDelayMs` after their time.
 */
async function insertSwaps(from: number, size: number, every: number, ingestDelayMs: number): Promise<number> {
  const select: Record<SwapColumn, string> = {
    chain_id: '{chainId:UInt32}',
    hash: `concat('0x', lower(hex(SHA256(concat({swapSeed:String}, toString(number))))))`,
    block_number: `toUInt64({firstBlock:UInt64} + intDiv(ts_ms - {startMs:Int64}, {blockMs:Int64}))`,
    timestamp: `fromUnixTimestamp64Milli(ts_ms, 'UTC')`,
    wallet_address: `wallet_list[1 + cityHash64(number, 1) % {wallets:UInt32}]`,
    token_sold_address: `token_list[1 + sold]`,
    token_sold_amount: `toUInt256(1 + cityHash64(number, 4) % {amountRange:UInt64}) * {amountScale:UInt256}`,
    token_bought_address: `token_list[1 + (sold + 1 + cityHash64(number, 3) % ({tokens:UInt32} - 1)) % {tokens:UInt32}]`,
    token_bought_amount: `toUInt256(1 + cityHash64(number, 5) % {amountRange:UInt64}) * {amountScale:UInt256}`,
    value_usd: `toFloat64(1 + cityHash64(number, 6) % {centsRange:UInt64}) / 100`,
    dex: `{dexes:Array(String)}[1 + cityHash64(number, 7) % length({dexes:Array(String)})]`,
    ingested_at: `fromUnixTimestamp64Milli(ts_ms + {ingestDelayMs:Int64}, 'UTC')`,
  }
  // The same rows (the select is deterministic) into each entry table, in order.
  let took = 0
  for (const entry of swapEntryTables(tables)) {
    took += await timed(
    '',
    `INSERT INTO ${entry} (${SWAP_INSERT_COLUMNS.join(', ')})
     WITH ${addressList('walletSeed', 'wallets')} AS wallet_list,
          ${addressList('tokenSeed', 'tokens')} AS token_list,
          {startMs:Int64} + intDiv(toInt64(number) * {spanMs:Int64}, {total:Int64}) AS ts_ms,
          cityHash64(number, 2) % {tokens:UInt32} AS sold
     SELECT ${SWAP_INSERT_COLUMNS.map((c) => select[c]).join(',\n            ')}
     FROM numbers(${from}, ${size})
     WHERE number % {every:UInt64} = 0`,
    {
      chainId: 1,
      swapSeed: SEEDS.swap,
      walletSeed: SEEDS.wallet,
      tokenSeed: SEEDS.token,
      wallets: WALLETS,
      tokens: TOKENS,
      startMs: buildStartMs,
      spanMs: buildEndMs - buildStartMs,
      total: SWAPS,
      firstBlock: 20_000_000,
      blockMs: 12_000,
      amountRange: 1_000_000_000,
      amountScale: '1000000000',
      centsRange: 10_000_000,
      dexes: ['uniswap-v2', 'uniswap-v3', 'sushiswap', 'curve'],
      ingestDelayMs,
      every,
    },
  )
  }
  return took
}

async function buildStore(): Promise<number> {
  const started = performance.now()
  console.log(`building ${count(SWAPS)} swaps (${TOKENS} tokens, ${count(WALLETS)} wallets, ${DAYS} days) in ${dataDir}`)
  for (let from = 0; from < SWAPS; from += CHUNK) {
    const size = Math.min(CHUNK, SWAPS - from)
    const took = await insertSwaps(from, size, 1, 2_000)
    console.log(`  swaps ${count(from + size)}/${count(SWAPS)}: chunk ${seconds(took)} (${count(size / (took / 1000))}/s), ${seconds(performance.now() - started)} so far`)
  }
  // Re-deliveries, one insert per chunk: unmerged duplicates the reads must collapse.
  for (let from = 0; from < SWAPS; from += CHUNK) {
    const size = Math.min(CHUNK, SWAPS - from)
    const took = await insertSwaps(from, size, REDELIVER_EVERY, 60_000)
    console.log(`  re-delivered ${count(Math.ceil((from + size) / REDELIVER_EVERY))}: chunk ${seconds(took)}, ${seconds(performance.now() - started)} so far`)
  }
  await timed(
    `holdings ${count(WALLETS * HOLDINGS_PER_WALLET)}:`,
    `INSERT INTO ${tables.holdings} (wallet_address, contract_address, balance_raw, value_usd, as_of)
     WITH ${addressList('walletSeed', 'wallets')} AS wallet_list,
          ${addressList('tokenSeed', 'tokens')} AS token_list,
          intDiv(number, {perWallet:UInt32}) AS w,
          number % {perWallet:UInt32} AS k
     SELECT wallet_list[1 + w], token_list[1 + (w * 7 + k * {stride:UInt32}) % {tokens:UInt32}],
            toUInt256(1 + cityHash64(number, 8) % {amountRange:UInt64}) * {amountScale:UInt256},
            toFloat64(cityHash64(number, 9) % {centsRange:UInt64}) / 100,
            fromUnixTimestamp64Milli({asOf:Int64}, 'UTC')
     FROM numbers(${WALLETS * HOLDINGS_PER_WALLET})`,
    {
      walletSeed: SEEDS.wallet,
      tokenSeed: SEEDS.token,
      wallets: WALLETS,
      tokens: TOKENS,
      perWallet: HOLDINGS_PER_WALLET,
      // k * stride (mod TOKENS) is distinct for k < HOLDINGS_PER_WALLET: 50 tokens per wallet.
      stride: Math.floor(TOKENS / HOLDINGS_PER_WALLET),
      amountRange: 1_000_000_000,
      amountScale: '1000000000',
      centsRange: 100_000_000,
      asOf: buildEndMs,
    },
  )
  await timed(
    `tokens ${TOKENS}:`,
    `INSERT INTO ${tables.tokens} (contract_address, id, chain_id, name, symbol, decimals, updated_at)
     WITH ${addressList('tokenSeed', 'tokens')} AS token_list
     SELECT token_list[1 + number] AS address, address, {chainId:UInt32},
            concat({namePrefix:String}, toString(number)), concat({symbolPrefix:String}, toString(number)),
            {decimals:Array(UInt8)}[1 + number % length({decimals:Array(UInt8)})],
            fromUnixTimestamp64Milli({asOf:Int64}, 'UTC')
     FROM numbers(${TOKENS})`,
    {
      tokenSeed: SEEDS.token,
      tokens: TOKENS,
      chainId: 1,
      namePrefix: 'Bench Token ',
      symbolPrefix: 'BT',
      decimals: [18, 6, 8],
      asOf: buildEndMs,
    },
  )
  const took = performance.now() - started
  const rs = await clickhouse.query({
    query: `SELECT table, sum(rows) AS rows, count() AS parts FROM system.parts
            WHERE database = {db:String} AND active GROUP BY table ORDER BY table`,
    query_params: { db: tables.database },
    format: 'JSONEachRow',
  })
  const parts = await rs.json<{ table: string; rows: string; parts: string }>()
  console.log(`store built in ${seconds(took)}: ${parts.map((p) => `${p.table} ${count(Number(p.rows))} rows/${p.parts} parts`).join(', ')}`)
  return took
}

/** With BENCH_STORE_DIR: whether the kept store already holds the SWAPS swaps. */
async function keptStoreReady(): Promise<boolean> {
  if (keptDir === undefined) return false
  const rs = await clickhouse.query({ query: `SELECT count() AS n FROM ${tables.swaps} FINAL`, format: 'JSONEachRow' })
  const [row] = await rs.json<{ n: string }>()
  const stored = Number(row?.n ?? 0)
  if (stored === SWAPS) {
    console.log(`measuring the kept store in ${dataDir} (${count(stored)} swaps) again`)
    return true
  }
  if (stored > 0) throw new Error(`${dataDir} holds ${count(stored)} swaps, not ${count(SWAPS)}: remove it or set BENCH_SWAPS`)
  return false
}

// ---------------------------------------------------------------------------------------
// Measuring.

interface Endpoint {
  name: string
  /** Path and query on the API. */
  path: string
  /** The storage call(s) the handler makes for this page, called directly. */
  raw: () => Promise<unknown>
  /** What `raw` is, when it is not the handler's own ClickHouse call. */
  rawNote?: string
  group: 'list' | 'offset' | 'hash' | 'candles' | 'cached' | 'screener' | 'other'
  /** Whether "API <= 1.5 x raw" applies (raw is what the handler itself does). */
  ratioTarget: boolean
}

interface Measured {
  endpoint: Endpoint
  p50: number
  p99: number
  /** p50 of the same request repeated, served from kept results where the endpoint keeps them. */
  keptP50: number
  /** Requests/s of the same request repeated (kept results and shared computations). */
  rps: number
  /** Requests/s with Cache-Control: no-cache; null: skipped (too slow to drain, see MAX_DRAIN_MS). */
  freshRps: number | null
  rawP50: number
  /** How many sequential requests and raw calls were timed. */
  samples: number
  rawSamples: number
  errors: string[]
}

/** Asks the API to compute the page now rather than serve a kept result (api/versioned-results.ts). */
const NO_CACHE = { 'cache-control': 'no-cache' }

async function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const res = await fetch(url, { headers })
  return { status: res.status, body: await res.text() }
}

/** Requests/s at CONNECTIONS connections for DURATION_S, from a worker thread. */
function cannon(url: string, headers: Record<string, string> = {}): Promise<{ rps: number; non2xx: number; errors: number }> {
  return load(url, { connections: CONNECTIONS, durationS: DURATION_S, headers })
}

/** Requests the API is serving; a load test leaves some queued after autocannon stops. */
let inFlight = 0
function trackInFlight(server: Server): void {
  server.on('request', (_req, res: ServerResponse) => {
    inFlight++
    res.once('close', () => inFlight--)
  })
}
async function drained(): Promise<void> {
  while (inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 20))
}

/** Durations (ms) of up to REQUESTS sequential calls, fewer when they take longer than BUDGET_MS. */
async function series(call: () => Promise<unknown>): Promise<number[]> {
  const times: number[] = []
  const deadline = performance.now() + BUDGET_MS
  while (times.length < REQUESTS && (times.length < MIN_SAMPLES || performance.now() < deadline)) {
    const started = performance.now()
    await call()
    times.push(performance.now() - started)
  }
  return times
}

async function measure(base: string, endpoint: Endpoint): Promise<Measured> {
  const url = `${base}${endpoint.path}`
  const errors: string[] = []
  const request = (headers: Record<string, string>) => async () => {
    const { status, body } = await get(url, headers)
    if (status !== 200 && errors.length < 3) errors.push(`${status} ${body.slice(0, 300)}`)
  }
  const warmupEnd = performance.now() + BUDGET_MS / 4
  for (let i = 0; i < WARMUP && (i === 0 || performance.now() < warmupEnd); i++) await request(NO_CACHE)()
  const times = await series(request(NO_CACHE))
  const keptTimes = await series(request({}))
  const rawTimes = await series(endpoint.raw)
  const p50 = percentile(times, 0.5)
  const load = async (headers: Record<string, string>) => {
    const result = await cannon(url, headers)
    if (result.non2xx > 0 || result.errors > 0) errors.push(`autocannon: ${result.non2xx} non-2xx responses, ${result.errors} errors`)
    await drained()
    return result.rps
  }
  const rps = await load({})
  const freshRps = p50 * CONNECTIONS <= MAX_DRAIN_MS ? await load(NO_CACHE) : null
  return {
    endpoint,
    p50,
    p99: percentile(times, 0.99),
    keptP50: percentile(keptTimes, 0.5),
    rps,
    freshRps,
    rawP50: percentile(rawTimes, 0.5),
    samples: times.length,
    rawSamples: rawTimes.length,
    errors,
  }
}

// ---------------------------------------------------------------------------------------

let api: ApiServer | undefined
let hello: Server | undefined
let directory: TokenDirectory | undefined
try {
  const buildMs = (await keptStoreReady()) ? 0 : await buildStore()
  // What the indicator role of a running service does within a second of any insert:
  // the stored candles take in every marked bucket (here: the whole store, once).
  const refreshStarted = performance.now()
  await refreshCandles(clickhouse, tables)
  console.log(`stored candles aggregated from the new store in ${seconds(performance.now() - refreshStarted)}`)
  // The refresher reads the last seconds of marks again (inserts may commit late); a running
  // service's refresher has passed them a few seconds later, so do as it does.
  await new Promise((resolve) => setTimeout(resolve, 6_000))
  await refreshCandles(clickhouse, tables)
  // The token flows by the hour, as the indicators role keeps them: on a store that never had them, one whole rebuild.
  const flowsStarted = performance.now()
  await refreshTokenFlows(clickhouse, tables)
  console.log(`token flows by the hour built from the store in ${seconds(performance.now() - flowsStarted)}`)

  // The raw side: the repositories the API builds (api/app.ts), with their own caches.
  directory = await TokenDirectory.start({
    clickhouse,
    tables,
    redis,
    redisPrefix: config.redis.prefix,
    refreshMs: config.tokenDirectory.refreshMs,
    logger: runtime.logger,
  })
  const presence = new TokenPresence(clickhouse, tables)
  /** Tokens are served from memory: their raw time is that of the same page read from ClickHouse. */
  const tokenRows = async (query: string, params: Record<string, unknown>) => {
    const rs = await clickhouse.query({ query, query_params: params, format: 'JSONEachRow' })
    return rs.json<Record<string, unknown>>()
  }
  const tokenColumns = 'contract_address, id, name, symbol, decimals'
  // Raw calls compute every time (fresh), as a request with Cache-Control: no-cache does.
  const feed = new FeedWatch(clickhouse, tables)
  const holdingsRepo = new HoldingsRepository(clickhouse, tables, directory, new VersionedResults(feed, ['holding']))
  const swapsRepo = new SwapsRepository(clickhouse, tables, new SwapHourCounts(clickhouse, tables, feed), directory, new VersionedResults(feed, ['swap']))
  const flowsRepo = new TokenFlowsRepository(clickhouse, tables, new VersionedResults(feed, ['swap']))
  const screener = new ScreenerRepository(clickhouse, tables, new VersionedResults(feed, ['swap']), new TokenFlowsRefreshGate(clickhouse, tables))
  const screenerScope = screenerTrackedSet(new SmartMoneyRepository(clickhouse, tables), new TrackedWalletsFile(trackedFile), config.smartMoney.rules)
  const fresh = { fresh: true }

  // SERVED_WALLETS=tracked: the first TRACKED_SHARE of the wallets are the tracked set.
  const trackedMode = config.smartMoney.servedWallets === 'tracked'
  const tracked = trackedMode ? Array.from({ length: Math.round(WALLETS * TRACKED_SHARE) }, (_, i) => walletAddress(i)) : []
  const servedWallets = new ServedWallets(clickhouse, tables, config.smartMoney.servedWallets)
  if (trackedMode) {
    const latest = await latestTrackedGeneration(clickhouse, tables)
    await publishTrackedGeneration(clickhouse, tables, tracked, null, latest?.generation ?? null)
    console.log(`SERVED_WALLETS=tracked: ${count(tracked.length)} of ${count(WALLETS)} wallets tracked`)
  }
  let served: ServedScope | null = await servedWallets.current()

  const wallet = walletAddress(0)
  const token = tokenAddress(0)
  const hash = trackedMode
    ? (await tokenRows(`SELECT hash FROM ${tables.swapsByWallet} WHERE wallet_address = {w:String} ORDER BY hash LIMIT 1`, { w: wallet }))[0]!.hash as string
    : swapHash(Math.floor(SWAPS / 2 / REDELIVER_EVERY) * REDELIVER_EVERY) // a re-delivered one
  const seeded: TechnicalAnalysis = {
    pivotPoints: { keyLevel: 1.01, Resistance1: 1.05, Support1: 0.97, Resistance2: 1.09, Support2: 0.93, dailyHigh: 1.08, dailyLow: 0.95, dailyClose: 1.02, volume24: 1_234_567.89 },
    ma50: 1.01,
    ma100: 0.99,
    ma200: 0.98,
    rsi: 54.2,
    macd: { macd: 0.012, signal: 0.009, histogram: 0.003 },
    timestamp: new Date().toISOString(),
    token: { id: token, name: 'Bench Token 0', symbol: 'BT0', decimals: 18, contractAddress: token },
    candleTime: Date.now() - 4 * 3_600_000,
    candleCount: 540,
  }
  await writeTechnicalAnalysis(redis, config.redis.prefix, seeded)

  api = await startApiServer(runtime, 0, '127.0.0.1')
  trackInFlight(api.server)
  const helloWorld = await startHelloWorld()
  hello = helloWorld.server
  // The reference, before and after the endpoints; the better run counts.
  await get(helloWorld.url)
  const helloBefore = await cannon(helloWorld.url)
  const base = `http://127.0.0.1:${api.port}`

  const now = Date.now()
  const last24h: SwapFilter = { startMs: now - DAY_MS, endMs: now }
  const whole: SwapFilter = { startMs: now - DAYS * DAY_MS, endMs: now }
  const lastMonth: SwapFilter = { startMs: now - 30 * DAY_MS, endMs: now }
  const range = (f: SwapFilter) => `start_time=${f.startMs}&end_time=${f.endMs}`
  const firstPage = { limit: 50, offset: 0 }

  // The deep cursor: the next_cursor of the page at offset 100,000 of the whole range.
  const jump = await get(`${base}/swap-transactions?${range(whole)}&offset=${OFFSET_DEEP}`)
  const nextCursor = (JSON.parse(jump.body) as { pagination?: { next_cursor?: string | null } }).pagination?.next_cursor
  if (jump.status !== 200 || typeof nextCursor !== 'string') {
    throw new Error(`GET /swap-transactions?${range(whole)}&offset=${OFFSET_DEEP} gave no next_cursor: ${jump.status} ${jump.body.slice(0, 300)}`)
  }
  const rawCursor = (await swapsRepo.list(whole, firstPage, { offset: OFFSET_DEEP }, {}, served)).next
  if (rawCursor === null) throw new Error(`the repository's page at offset ${OFFSET_DEEP} has no next position`)

  const endpoints: Endpoint[] = [
    { name: 'swaps: last 24 h, first page', path: `/swap-transactions?${range(last24h)}`, raw: () => swapsRepo.list(last24h, firstPage, { offset: 0 }, fresh, served), group: 'list', ratioTarget: true },
    { name: 'swaps: 90 days, first page', path: `/swap-transactions?${range(whole)}`, raw: () => swapsRepo.list(whole, firstPage, { offset: 0 }, fresh, served), group: 'list', ratioTarget: true },
    {
      name: 'swaps: one wallet (address=)',
      path: `/swap-transactions?${range(whole)}&address=${wallet}`,
      raw: () => swapsRepo.list({ ...whole, walletAddress: wallet }, firstPage, { offset: 0 }, fresh, served),
      group: 'list',
      ratioTarget: true,
    },
    {
      name: 'swaps: one token (token_id=)',
      path: `/swap-transactions?${range(whole)}&token_id=${token}`,
      raw: () => swapsRepo.list({ ...whole, tokenAddresses: directory!.addressesForTokenId(token, true) }, firstPage, { offset: 0 }, fresh, served),
      group: 'list',
      ratioTarget: true,
    },
    {
      name: `swaps: cursor page after offset ${count(OFFSET_DEEP)}`,
      path: `/swap-transactions?${range(whole)}&cursor=${nextCursor}`,
      raw: () => swapsRepo.list(whole, firstPage, { cursor: rawCursor }, fresh, served),
      group: 'list',
      ratioTarget: true,
    },
    {
      name: `swaps: offset=${count(OFFSET_DEEP)}, 90 days`,
      path: `/swap-transactions?${range(whole)}&offset=${OFFSET_DEEP}`,
      raw: () => swapsRepo.list(whole, firstPage, { offset: OFFSET_DEEP }, fresh, served),
      group: 'offset',
      ratioTarget: true,
    },
    { name: 'swap by hash', path: `/swap-transactions/${hash}`, raw: () => swapsRepo.findByHash(hash, fresh, served), group: 'hash', ratioTarget: true },
    {
      name: 'tokens?limit=50',
      path: '/tokens?limit=50',
      raw: () =>
        Promise.all([
          tokenRows(`SELECT ${tokenColumns} FROM ${tables.tokens} FINAL ORDER BY symbol, contract_address LIMIT {limit:UInt32}`, { limit: 50 }),
          tokenRows(`SELECT count() AS total FROM ${tables.tokens} FINAL`, {}),
        ]),
      rawNote: 'served from the in-memory token directory; raw = the same page (and total) read from ClickHouse',
      group: 'other',
      ratioTarget: false,
    },
    {
      name: 'tokens/:address',
      path: `/tokens/${token}`,
      raw: () => tokenRows(`SELECT ${tokenColumns} FROM ${tables.tokens} FINAL WHERE contract_address = {address:String}`, { address: token }),
      rawNote: 'served from the in-memory token directory; raw = the same token read from ClickHouse',
      group: 'cached',
      ratioTarget: false,
    },
    { name: 'holdings', path: '/holdings', raw: () => holdingsRepo.list(firstPage, undefined, fresh, served), group: 'list', ratioTarget: true },
    { name: 'holdings/token/:address', path: `/holdings/token/${token}`, raw: () => holdingsRepo.list(firstPage, token, fresh, served), group: 'list', ratioTarget: true },
    {
      name: 'wallets/:address/holdings',
      path: `/wallets/${wallet}/holdings`,
      raw: () => holdingsRepo.listOfWallet(wallet, firstPage, fresh, served),
      group: 'list',
      ratioTarget: true,
    },
    {
      name: 'tokens/:address/flows (last 24 h)',
      path: `/tokens/${token}/flows?${range(last24h)}`,
      raw: () => flowsRepo.flows(directory!.ref(token), [token], { startMs: last24h.startMs, endMs: last24h.endMs }, 10, fresh, served),
      group: 'other',
      ratioTarget: true,
    },
    {
      name: 'tokens/:address/flows (30 days, the longest window)',
      path: `/tokens/${token}/flows?${range(lastMonth)}`,
      raw: () => flowsRepo.flows(directory!.ref(token), [token], { startMs: lastMonth.startMs, endMs: lastMonth.endMs }, 10, fresh, served),
      group: 'other',
      ratioTarget: true,
    },
    ...(['24h', '30d'] as const).map(
      (window): Endpoint => ({
        name: `smart-money/tokens (screener, ${window}, by net flow)`,
        path: `/smart-money/tokens?window=${window}&sort=net_flow`,
        raw: async () => screener.screen(window, 'net_flow', await screenerScope(), fresh),
        group: 'screener',
        ratioTarget: true,
      }),
    ),
    {
      name: 'technical-analysis (cached)',
      path: `/technical-analysis?contract_address=${token}`,
      raw: () => readTechnicalAnalysis(redis, config.redis.prefix, token),
      rawNote: 'raw = the Redis read (readTechnicalAnalysis)',
      group: 'cached',
      ratioTarget: true,
    },
    {
      name: 'tokens/:address/candles (90 days)',
      path: `/tokens/${token}/candles?${range(whole)}`,
      // The candle query alone: the API re-aggregates first only after ingestion stored
      // something (api/candle-refresh-gate.ts), and nothing is stored while this runs.
      raw: async () => {
        await presence.isKnownAddress(token)
        return closedCandles(clickhouse, tables, token, Date.now(), CANDLE_MS, async () => undefined)
      },
      group: 'candles',
      ratioTarget: true,
    },
  ]

  console.log('\ncold: the first request of each endpoint, before any load')
  for (const endpoint of endpoints) {
    const started = performance.now()
    const { status, body } = await get(`${base}${endpoint.path}`)
    const total = status === 200 ? (JSON.parse(body) as { pagination?: { total?: number } }).pagination?.total : undefined
    console.log(`  ${endpoint.name}: ${ms(performance.now() - started)} ms, ${status}${total === undefined ? '' : `, total ${count(total)}`}${status === 200 ? '' : ` ${body.slice(0, 300)}`}`)
  }

  console.log(`\nmeasuring: ${REQUESTS} sequential requests, ${REQUESTS} raw calls (each series at most ${seconds(BUDGET_MS)}), autocannon ${CONNECTIONS} connections x ${DURATION_S} s`)
  const results: Measured[] = []
  for (const endpoint of endpoints) {
    try {
      const m = await measure(base, endpoint)
      results.push(m)
      console.log(
        `  ${endpoint.name}: p50 ${ms(m.p50)} ms computed (${m.samples} requests), ${ms(m.keptP50)} ms repeated, ${count(m.rps)} req/s repeated, ${m.freshRps === null ? 'no-cache load test skipped' : `${count(m.freshRps)} req/s no-cache`}, raw ${ms(m.rawP50)} ms (${m.rawSamples} calls)` +
          (m.errors.length > 0 ? `  ERRORS: ${m.errors.join(' / ')}` : ''),
      )
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err)
      console.log(`  ${endpoint.name}: FAILED (GET ${endpoint.path}): ${message}`)
      results.push({ endpoint, p50: NaN, p99: NaN, keptP50: NaN, rps: NaN, freshRps: null, rawP50: NaN, samples: 0, rawSamples: 0, errors: [message] })
    }
  }

  if (trackedMode) {
    // A new generation (one more wallet): the served scope's hour counts start again.
    const latest = await latestTrackedGeneration(clickhouse, tables)
    await publishTrackedGeneration(clickhouse, tables, [...tracked, walletAddress(tracked.length)].sort(), null, latest?.generation ?? null)
    await new Promise((resolve) => setTimeout(resolve, 1_100)) // the API looks for a new generation once a second
    served = await servedWallets.current()
    console.log(`\nafter a new generation (${count(tracked.length + 1)} wallets), the first request of:`)
    for (const endpoint of endpoints.filter((e) => e.path.startsWith('/swap-transactions?'))) {
      const started = performance.now()
      const { status, body } = await get(`${base}${endpoint.path}`)
      const total = status === 200 ? (JSON.parse(body) as { pagination?: { total?: number } }).pagination?.total : undefined
      console.log(`  ${endpoint.name}: ${ms(performance.now() - started)} ms, ${status}${total === undefined ? '' : `, total ${count(total)}`}`)
    }
  }

  await drained()
  const helloAfter = await cannon(helloWorld.url)
  const helloLoad = helloAfter.rps >= helloBefore.rps ? helloAfter : helloBefore

  // -------------------------------------------------------------------------------------
  console.log(`\n## API benchmark: ${count(SWAPS)} swaps (+${count(Math.ceil(SWAPS / REDELIVER_EVERY))} re-deliveries unmerged), ${TOKENS} tokens, ${count(WALLETS)} wallets, ${count(WALLETS * HOLDINGS_PER_WALLET)} holdings${trackedMode ? `; SERVED_WALLETS=tracked, ${count(tracked.length)} wallets (${(TRACKED_SHARE * 100).toFixed(0)} %) served` : ''}\n`)
  const rows = results.map((m) => [
    m.endpoint.name +
      (m.endpoint.rawNote ? ' *' : '') +
      (m.samples < REQUESTS || m.rawSamples < REQUESTS ? ' †' : '') +
      (m.errors.length > 0 ? ' (errors!)' : ''),
    ms(m.p50),
    ms(m.p99),
    ms(m.keptP50),
    m.freshRps === null ? 'skipped ‡' : count(m.freshRps),
    count(m.rps),
    ms(m.rawP50),
    Number.isNaN(m.p50 / m.rawP50) ? '—' : `${(m.p50 / m.rawP50).toFixed(2)}x`,
  ])
  rows.push(['hello-world Express (reference)', '—', '—', '—', '—', count(helloLoad.rps), '—', '—'])
  console.log(
    markdownTable(
      ['endpoint', 'p50 ms (no-cache)', 'p99 ms (no-cache)', 'p50 ms (repeated)', `req/s no-cache (${CONNECTIONS} conn)`, `req/s repeated (${CONNECTIONS} conn)`, 'raw ClickHouse p50 ms', 'API/raw ratio'],
      rows,
      ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right'],
    ),
  )
  for (const m of results.filter((r) => r.endpoint.rawNote)) console.log(`* ${m.endpoint.name}: ${m.endpoint.rawNote}`)
  for (const m of results.filter((r) => r.samples < REQUESTS || r.rawSamples < REQUESTS)) {
    console.log(`† ${m.endpoint.name}: ${m.samples} requests and ${m.rawSamples} raw calls within the ${seconds(BUDGET_MS)} budget`)
  }
  for (const m of results.filter((r) => r.freshRps === null && !Number.isNaN(r.p50))) {
    console.log(`‡ ${m.endpoint.name}: load test skipped: p50 ${ms(m.p50)} ms x ${CONNECTIONS} connections > ${seconds(MAX_DRAIN_MS)} to drain (one at a time: <= ${(1000 / m.p50).toFixed(1)} req/s)`)
  }
  console.log(`\nhello-world Express: ${count(helloLoad.rps)} req/s (runs before and after the endpoints: ${count(helloBefore.rps)}, ${count(helloAfter.rps)})`)
  console.log(`store build: ${seconds(buildMs)}`)

  const checks: { target: string; ok: boolean; detail: string }[] = []
  const check = (target: string, ms_: Measured[], pass: (m: Measured) => boolean, value: (m: Measured) => string) => {
    const failed = ms_.filter((m) => !pass(m))
    checks.push({
      target,
      ok: failed.length === 0,
      detail: failed.length === 0 ? 'all met' : failed.map((m) => `${m.endpoint.name}: ${value(m)}`).join('; '),
    })
  }
  const lists = results.filter((m) => m.endpoint.group === 'list')
  const of = (group: Endpoint['group']) => results.filter((m) => m.endpoint.group === group)
  check('list pages p50 <= 30 ms', lists, (m) => m.p50 <= 30, (m) => `${ms(m.p50)} ms`)
  check('list pages p99 <= 100 ms', lists, (m) => m.p99 <= 100, (m) => `${ms(m.p99)} ms`)
  check(`offset ${count(OFFSET_DEEP)} p50 <= 150 ms`, of('offset'), (m) => m.p50 <= 150, (m) => `${ms(m.p50)} ms`)
  check('swap by hash p50 <= 5 ms', of('hash'), (m) => m.p50 <= 5, (m) => `${ms(m.p50)} ms`)
  check('candles p50 <= 30 ms', of('candles'), (m) => m.p50 <= 30, (m) => `${ms(m.p50)} ms`)
  check(
    `technical-analysis and tokens/:address >= 0.5 x hello-world req/s (>= ${count(helloLoad.rps / 2)})`,
    of('cached'),
    (m) => m.rps >= helloLoad.rps / 2,
    (m) => `${count(m.rps)} req/s = ${(m.rps / helloLoad.rps).toFixed(2)}x`,
  )
  check('screener p50 <= 30 ms', of('screener'), (m) => m.p50 <= 30, (m) => `${ms(m.p50)} ms`)
  check(
    `screener repeated >= 0.5 x hello-world req/s (>= ${count(helloLoad.rps / 2)})`,
    of('screener'),
    (m) => m.rps >= helloLoad.rps / 2,
    (m) => `${count(m.rps)} req/s = ${(m.rps / helloLoad.rps).toFixed(2)}x`,
  )
  check('list pages >= 300 req/s (repeated)', lists, (m) => m.rps >= 300, (m) => `${count(m.rps)} req/s`)
  check('list pages >= 300 req/s (no-cache)', lists, (m) => m.freshRps !== null && m.freshRps >= 300, (m) => (m.freshRps === null ? 'not measured (too slow)' : `${count(m.freshRps)} req/s`))
  check(
    'API p50 <= 1.5 x raw p50',
    results.filter((m) => m.endpoint.ratioTarget),
    (m) => m.p50 <= 1.5 * m.rawP50,
    (m) => `${(m.p50 / m.rawP50).toFixed(2)}x`,
  )
  console.log('\n### Targets\n')
  for (const c of checks) console.log(`- [${c.ok ? 'x' : ' '}] ${c.target}${c.ok ? '' : `: missed by ${c.detail}`}`)
  const errored = results.filter((m) => m.errors.length > 0)
  if (errored.length > 0) {
    console.log('\n### Errors\n')
    for (const m of errored) console.log(`- GET ${m.endpoint.path}: ${m.errors.join(' / ')}`)
  }
} finally {
  await drained()
  if (api) await api.close()
  if (hello) await closeServer(hello)
  if (directory) await directory.close()
  if (keptDir === undefined) {
    await clickhouse.command({ query: `DROP DATABASE IF EXISTS ${tables.database}` }).catch((err: unknown) => console.error('drop database failed', err))
  }
  await deleteKeysWithPrefix(redis, config.redis.prefix).catch((err: unknown) => console.error('redis cleanup failed', err))
  redis.disconnect()
  await clickhouse.close()
  if (keptDir === undefined) rmSync(dataDir, { recursive: true, force: true })
  rmSync(dirname(trackedFile), { recursive: true, force: true })
}
