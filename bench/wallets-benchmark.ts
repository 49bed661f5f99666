/**
 * `npm run bench:wallets`: every wallet's statistics (shared/smart-money/) on a store of
 * BENCH_SWAPS swaps (default 10,000,000) by BENCH_WALLETS wallets (default swaps / 100) of
 * 200 tokens over 365 days up to now, built inside ClickHouse (INSERT ... SELECT FROM
 * numbers()) through the swaps' entry tables as ingestion writes them, a tenth of them
 * delivered twice; then, BENCH_UPDATES times (default 4), BENCH_NEW_SWAPS more (default
 * 100,000) by the same wallets over the next BENCH_STEP_MS (default 60 s, the refresher's
 * interval), stamped as ingestion stamps them: over the minute up to their insert, each
 * followed by an incremental update.
 *
 * Each timed step starts on a store at rest (mergesSettled). Prints, each beside a reference
 * measured in the same run:
 * - the full computation (storeWalletStats) beside one plain FINAL scan of the same swaps;
 * - the incremental updates after the new swaps, each with the clock moved by the step
 *   (updateWalletStats), beside a scan of the columns of the stored positions that its
 *   carried lookup reads: the first, right after the full run, and the last, in steady
 *   ingestion (each takes the swap changes since its predecessor's feed position);
 *   BENCH_VERIFY=1 also runs a full computation at the last one's time and compares every
 *   wallet's rows with it;
 * - GET /wallets (its first request after the run, which reads the run's tracked set, then
 *   p50/p99) and GET /wallets/:address p50/p99 (a different wallet each request) over real
 *   HTTP beside GET /health;
 * with the load average of the machine before each timed step, and during the two runs the
 * cores this process kept busy and those the hypervisor took away (machine-share.ts).
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { startApiServer } from '../api/api-server.js'
import { openRuntime } from '../shared/bootstrap.js'
import { loadConfig } from '../shared/platform/config.js'
import { dateTime64Param } from '../shared/platform/datetime-param.js'
import { createRedis, deleteKeysWithPrefix } from '../shared/platform/redis.js'
import { SWAP_INSERT_COLUMNS, swapEntryTables, type SwapColumn } from '../shared/storage/schema/swaps-schema.js'
import { withMergesHeld } from '../shared/smart-money/held-merges.js'
import { updateWalletStats } from '../shared/smart-money/incremental-run.js'
import { storeWalletStats } from '../shared/smart-money/store-wallet-stats.js'
import { shareText, timedShare } from './machine-share.js'
import { compareRuns } from './wallets-compare.js'
import { count, markdownTable, ms, percentile, seconds } from './report.js'

const SWAPS = Number(process.env.BENCH_SWAPS ?? 10_000_000)
const NEW_SWAPS = Number(process.env.BENCH_NEW_SWAPS ?? 100_000)
const STEP_MS = Number(process.env.BENCH_STEP_MS ?? 60_000)
const UPDATES = Math.max(1, Number(process.env.BENCH_UPDATES ?? 4))
const VERIFY = process.env.BENCH_VERIFY === '1'
const WALLETS = Number(process.env.BENCH_WALLETS ?? Math.max(1, Math.floor(SWAPS / 100)))
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 100)
const TOKENS = 200
const DAYS = 365
const CHUNK = 1_000_000
const DAY_MS = 86_400_000

const tag = randomBytes(4).toString('hex')
const dataDir = mkdtempSync(join(tmpdir(), 'wallets-bench-'))
const config = loadConfig({
  ...process.env,
  CLICKHOUSE_URL: undefined,
  CLICKHOUSE_PATH: dataDir,
  CLICKHOUSE_DATABASE: `wallets_bench_${tag}`,
  REDIS_PREFIX: `wallets-bench-${tag}`,
  SAMPLE_DATA: 'false',
  LOG_LEVEL: 'warn',
})
const runtime = await openRuntime(config, 'bench')
const { clickhouse, tables } = runtime
const endMs = Date.now()

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now()
  const value = await work()
  return [value, performance.now() - started]
}

/** Swaps number `from` … `from + size - 1` (every `every`-th), their times spread evenly from startMs over spanMs for `total` swaps. */
interface SwapBatch {
  from: number
  size: number
  every: number
  ingestDelayMs: number
  startMs: number
  spanMs: number
  first: number
  total: number
}

async function insertSwaps({ from, size, every, ingestDelayMs, startMs, spanMs, first, total }: SwapBatch): Promise<void> {
  const select: Record<SwapColumn, string> = {
    chain_id: '1',
    hash: `concat('0x', lower(hex(SHA256(concat({seed:String}, toString(number))))))`,
    block_number: 'toUInt64(20000000 + number)',
    timestamp: `fromUnixTimestamp64Milli(ts_ms, 'UTC')`,
    wallet_address: `concat('0x', leftPad(lower(hex(cityHash64({seed:String}, cityHash64(number, 1) % {wallets:UInt32}))), 40, '0'))`,
    token_sold_address: `concat('0x', leftPad(lower(hex(sold + 1)), 40, '0'))`,
    token_sold_amount: `toUInt256(1 + cityHash64(number, 4) % 1000000000) * toUInt256(1000000000)`,
    token_bought_address: `concat('0x', leftPad(lower(hex((sold + 1 + cityHash64(number, 3) % ({tokens:UInt32} - 1)) % {tokens:UInt32} + 1)), 40, '0'))`,
    token_bought_amount: `toUInt256(1 + cityHash64(number, 5) % 1000000000) * toUInt256(1000000000)`,
    value_usd: `if(cityHash64(number, 8) % 50 = 0, NULL, toFloat64(1 + cityHash64(number, 6) % 10000000) / 100)`,
    dex: `'uniswap-v3'`,
    ingested_at: `fromUnixTimestamp64Milli(ts_ms + {delay:Int64}, 'UTC')`,
  }
  // The same rows (the select is deterministic) into each entry table, in order.
  for (const entry of swapEntryTables(tables)) {
    await clickhouse.command({
      query: `INSERT INTO ${entry} (${SWAP_INSERT_COLUMNS.join(', ')})
      WITH {start:Int64} + intDiv((toInt64(number) - {first:Int64}) * {span:Int64}, {total:Int64}) AS ts_ms,
           cityHash64(number, 2) % {tokens:UInt32} AS sold
      SELECT ${SWAP_INSERT_COLUMNS.map((c) => select[c]).join(', ')}
      FROM numbers(${from}, ${size}) WHERE number % {every:UInt64} = 0`,
      query_params: { seed: tag, wallets: WALLETS, tokens: TOKENS, start: startMs, span: spanMs, first, total, delay: ingestDelayMs, every },
    })
  }
}

/** Request i's latency, after 5 warm-up requests; `url` is the same or a different one each time. */
async function latencies(url: string | ((i: number) => string)): Promise<number[]> {
  const samples: number[] = []
  for (let i = 0; i < REQUESTS + 5; i++) {
    const started = performance.now()
    const res = await fetch(typeof url === 'string' ? url : url(i))
    await res.arrayBuffer()
    if (res.status !== 200) throw new Error(`${typeof url === 'string' ? url : url(i)}: ${res.status}`)
    if (i >= 5) samples.push(performance.now() - started)
  }
  return samples
}

const load = () => loadavg().map((x) => x.toFixed(2)).join(' ')
/** 1st, 2nd, 3rd, 4th … */
const ordinal = (n: number) => `${n}${n % 10 === 1 && n % 100 !== 11 ? 'st' : n % 10 === 2 && n % 100 !== 12 ? 'nd' : n % 10 === 3 && n % 100 !== 13 ? 'rd' : 'th'}`
/** Seconds to the hundredth: the update's target (2 s) is near its figure. */
const hundredths = (millis: number) => `${(millis / 1000).toFixed(2)} s`

/**
 * Waits until no merge of the store's parts runs (at most two minutes), as a store at rest
 * between runs is: the refresher runs a minute apart, and a build of millions of rows leaves
 * merges that would otherwise run through the timed step. Returns how long it waited.
 */
async function mergesSettled(): Promise<number> {
  const started = performance.now()
  while (performance.now() - started < 120_000) {
    const [row] = await clickhouse
      .query({ query: 'SELECT count() AS merges FROM system.merges WHERE database = {db:String}', query_params: { db: tables.database }, format: 'JSONEachRow' })
      .then((r) => r.json<{ merges: string }>())
    if (Number(row?.merges ?? 0) === 0) break
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  return performance.now() - started
}
const history = (from: number, size: number, every: number, ingestDelayMs: number): SwapBatch => ({
  from,
  size,
  every,
  ingestDelayMs,
  startMs: endMs - DAYS * DAY_MS,
  spanMs: DAYS * DAY_MS,
  first: 0,
  total: SWAPS,
})

try {
  console.log(`building ${count(SWAPS)} swaps by ${count(WALLETS)} wallets of ${TOKENS} tokens over ${DAYS} days`)
  const [, buildMs] = await timed(async () => {
    for (let from = 0; from < SWAPS; from += CHUNK) await insertSwaps(history(from, Math.min(CHUNK, SWAPS - from), 1, 2_000))
    for (let from = 0; from < SWAPS; from += CHUNK) await insertSwaps(history(from, Math.min(CHUNK, SWAPS - from), 10, 60_000))
  })
  console.log(`  built in ${seconds(buildMs)}`)

  console.log(`  merges settled in ${seconds(await mergesSettled())}`)
  const scanSwaps = (where = '', query_params: Record<string, unknown> = {}) =>
    timed(() => clickhouse.query({ query: `SELECT count(), sum(value_usd) FROM ${tables.swaps} FINAL ${where}`, query_params, format: 'JSONEachRow' }).then((r) => r.json()))
  const fullLoad = load()
  const [, scanMs] = await scanSwaps('')
  const fullSteps: string[] = []
  const [run, fullMs, fullShare] = await timedShare(() => storeWalletStats(clickhouse, tables, endMs, Date.now(), { onStep: (step, took) => fullSteps.push(`${step} ${seconds(took)}`) }))
  console.log(`  full computation ${seconds(fullMs)} (load ${fullLoad}; ${shareText(fullShare)}): ${fullSteps.join(', ')}`)

  /**
   * The k-th minute after the history (k from 1): its new swaps, by the same wallets, stamped
   * over the minute up to the real clock as ingestion stamps them, then the update with the
   * clock at its end.
   */
  const updateAfterNewSwaps = async (k: number) => {
    const asOfMs = endMs + k * STEP_MS
    const from = SWAPS + (k - 1) * NEW_SWAPS
    await insertSwaps({ from, size: NEW_SWAPS, every: 1, ingestDelayMs: Date.now() - asOfMs, startMs: asOfMs - STEP_MS + 1, spanMs: STEP_MS, first: from, total: NEW_SWAPS })
    const settled = await mergesSettled()
    const startLoad = load()
    // The update's floor: its carried lookup reads these columns of every stored position (each granule holds a touched pair).
    const [, positionsScanMs] = await timed(() =>
      clickhouse
        .query({ query: `SELECT count(), sum(cost_usd), max(quantity), max(last_timestamp), max(computed_at) FROM ${tables.walletPositions}`, format: 'JSONEachRow' })
        .then((r) => r.json()),
    )
    const steps: string[] = []
    const onStep = (step: string, took: number) => steps.push(`${step} ${seconds(took)}`)
    const [run, took, share] = await timedShare(() => updateWalletStats(clickhouse, tables, asOfMs, Date.now(), { onStep }))
    console.log(`  merges settled in ${seconds(settled)}; update ${k}: ${run.kind} ${hundredths(took)} (load ${startLoad}; ${shareText(share)}): ${steps.join(', ')}`)
    return { run, took, share, steps, startLoad, positionsScanMs }
  }
  const updates = []
  for (let k = 1; k <= UPDATES; k++) updates.push(await updateAfterNewSwaps(k))
  const first = updates[0]!
  const last = updates[updates.length - 1]!
  const update = last.run

  const api = await startApiServer(runtime, 0, '127.0.0.1')
  const base = `http://127.0.0.1:${api.port}`
  // Profiles of different wallets, as an analyst opens them (a wallet's open positions are valued once per run).
  const someWallets = await clickhouse
    .query({ query: `SELECT wallet_address FROM ${tables.walletStats} WHERE window = 'all' LIMIT {n: UInt32}`, query_params: { n: REQUESTS + 5 }, format: 'JSONEachRow' })
    .then((r) => r.json<{ wallet_address: string }>())
  const apiLoad = load()
  const health = await latencies(`${base}/health`)
  // The first request after a run reads the run's tracked set; the next ones page through it.
  const [, firstListMs] = await timed(() => fetch(`${base}/wallets?limit=50`).then((r) => r.arrayBuffer()))
  const list = await latencies(`${base}/wallets?limit=50`)
  const one = await latencies((i) => `${base}/wallets/${someWallets[i % someWallets.length]!.wallet_address}`)
  await api.close()

  let verified = ''
  if (VERIFY) {
    // wallet_stats keeps a key's latest run when its parts merge: held, the update's rows stay to be compared.
    const diff = await withMergesHeld(clickhouse, [tables.walletStats], async () => {
      const full = await storeWalletStats(clickhouse, tables, endMs + UPDATES * STEP_MS)
      return compareRuns(clickhouse, tables, update.computedAtMs, full.computedAtMs)
    })
    verified = `; against a full computation at the same time: ${count(diff.rows)} (wallet, window) rows, ${count(diff.different)} different`
  }

  console.log(`\n${count(SWAPS)} swaps (+${count(SWAPS / 10)} re-delivered), ${count(run.wallets)} wallets, 4 windows; ${UPDATES} × ${count(NEW_SWAPS)} new swaps, each over ${seconds(STEP_MS)}, then ${count(update.wallets)} wallets${verified}; ${process.env.BENCH_NOTE ?? ''}`)
  console.log(
    markdownTable(
      ['measure', 'time', 'reference in the same run', 'load average (1, 5, 15 min); cores during the step', 'issue target (10M swaps, 100k wallets)'],
      [
        ['full computation (every wallet, every window)', `${seconds(fullMs)} (${fullSteps.join(', ')})`, `FINAL scan of the swaps: ${seconds(scanMs)}`, `${fullLoad}; ${shareText(fullShare)}`, '≤ 30 s'],
        ...[first, ...(UPDATES > 1 ? [last] : [])].map((u, i) => [
          `${u.run.kind} update after ${count(NEW_SWAPS)} new swaps, ${i === 0 ? 'the first after the full run' : `the ${ordinal(UPDATES)} in a row (steady ingestion)`}`,
          `${hundredths(u.took)} (${u.steps.join(', ')})`,
          `a scan of the stored positions' quantity, cost and times: ${hundredths(u.positionsScanMs)}`,
          `${u.startLoad}; ${shareText(u.share)}`,
          '≤ 2 s',
        ]),
        ['GET /wallets?limit=50, the first request after the run', `${ms(firstListMs)} ms`, '', apiLoad, ''],
        ['GET /wallets?limit=50 p50 / p99', `${ms(percentile(list, 0.5))} / ${ms(percentile(list, 0.99))} ms`, `GET /health p50 ${ms(percentile(health, 0.5))} ms`, apiLoad, 'p50 ≤ 30 ms'],
        ['GET /wallets/:address p50 / p99 (a different wallet each time)', `${ms(percentile(one, 0.5))} / ${ms(percentile(one, 0.99))} ms`, '', apiLoad, ''],
      ],
      ['left', 'right', 'left', 'left', 'left'],
    ),
  )
} finally {
  await clickhouse.command({ query: `DROP DATABASE IF EXISTS ${tables.database}` }).catch(() => undefined)
  await clickhouse.close()
  const redis = createRedis(config.redis.url)
  await deleteKeysWithPrefix(redis, config.redis.prefix).finally(() => redis.disconnect())
  rmSync(dataDir, { recursive: true, force: true })
}
