/**
 * `npm run bench:wallets`: every wallet's statistics (shared/wallet-stats/) on a store of
 * BENCH_SWAPS swaps (default 1,000,000) by BENCH_WALLETS wallets (default swaps / 100) of
 * 200 tokens over 365 days, built inside ClickHouse (INSERT ... SELECT FROM numbers()) through
 * swaps_incoming as ingestion writes them, a tenth of them delivered twice.
 *
 * Prints, each beside a reference measured in the same run:
 * - the full computation (storeWalletStats: one INSERT ... SELECT of every wallet and window)
 *   beside one plain FINAL scan of the same swaps (count and sum of value_usd);
 * - GET /wallets and GET /wallets/:address p50/p99 over real HTTP beside GET /health.
 * The targets (10,000,000 swaps, 100,000 wallets: full ≤ 30 s, GET /wallets p50 ≤ 30 ms)
 * are printed too; on a loaded machine run it smaller and say so.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startApiServer } from '../api/api-server.js'
import { openRuntime } from '../shared/bootstrap.js'
import { loadConfig } from '../shared/config.js'
import { createRedis, deleteKeysWithPrefix } from '../shared/redis.js'
import { SWAP_INSERT_COLUMNS, swapEntryTables, type SwapColumn } from '../shared/schema/swaps-schema.js'
import { storeWalletStats } from '../shared/wallet-stats/store-wallet-stats.js'
import { count, markdownTable, ms, percentile, seconds } from './report.js'

const SWAPS = Number(process.env.BENCH_SWAPS ?? 1_000_000)
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

async function insertSwaps(from: number, size: number, every: number, ingestDelayMs: number): Promise<void> {
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
      WITH {start:Int64} + intDiv(toInt64(number) * {span:Int64}, {total:Int64}) AS ts_ms,
           cityHash64(number, 2) % {tokens:UInt32} AS sold
      SELECT ${SWAP_INSERT_COLUMNS.map((c) => select[c]).join(', ')}
      FROM numbers(${from}, ${size}) WHERE number % {every:UInt64} = 0`,
    query_params: { seed: tag, wallets: WALLETS, tokens: TOKENS, start: endMs - DAYS * DAY_MS, span: DAYS * DAY_MS, total: SWAPS, delay: ingestDelayMs, every },
  })
  }
}

async function latencies(url: string): Promise<number[]> {
  const samples: number[] = []
  for (let i = 0; i < REQUESTS + 5; i++) {
    const started = performance.now()
    const res = await fetch(url)
    await res.arrayBuffer()
    if (res.status !== 200) throw new Error(`${url}: ${res.status}`)
    if (i >= 5) samples.push(performance.now() - started)
  }
  return samples
}

try {
  console.log(`building ${count(SWAPS)} swaps by ${count(WALLETS)} wallets of ${TOKENS} tokens over ${DAYS} days`)
  const [, buildMs] = await timed(async () => {
    for (let from = 0; from < SWAPS; from += CHUNK) await insertSwaps(from, Math.min(CHUNK, SWAPS - from), 1, 2_000)
    for (let from = 0; from < SWAPS; from += CHUNK) await insertSwaps(from, Math.min(CHUNK, SWAPS - from), 10, 60_000)
  })
  console.log(`  built in ${seconds(buildMs)}`)

  const [, scanMs] = await timed(() => clickhouse.query({ query: `SELECT count(), sum(value_usd) FROM ${tables.swaps} FINAL`, format: 'JSONEachRow' }).then((r) => r.json()))
  const [run, fullMs] = await timed(() => storeWalletStats(clickhouse, tables, endMs))

  const api = await startApiServer(runtime, 0, '127.0.0.1')
  const base = `http://127.0.0.1:${api.port}`
  const [someWallet] = (await clickhouse.query({ query: `SELECT wallet_address FROM ${tables.walletStats} LIMIT 1`, format: 'JSONEachRow' }).then((r) => r.json<{ wallet_address: string }>()))
  const health = await latencies(`${base}/health`)
  const list = await latencies(`${base}/wallets?limit=50`)
  const one = await latencies(`${base}/wallets/${someWallet!.wallet_address}`)
  await api.close()

  console.log(`\n${count(SWAPS)} swaps (+${count(SWAPS / 10)} re-delivered), ${count(run.wallets)} wallets, 4 windows; ${process.env.BENCH_NOTE ?? ''}`)
  console.log(
    markdownTable(
      ['measure', 'time', 'reference in the same run', 'issue target (10M swaps, 100k wallets)'],
      [
        ['full computation (every wallet, every window)', seconds(fullMs), `FINAL scan of the swaps: ${seconds(scanMs)}`, '≤ 30 s'],
        ['GET /wallets?limit=50 p50 / p99', `${ms(percentile(list, 0.5))} / ${ms(percentile(list, 0.99))} ms`, `GET /health p50 ${ms(percentile(health, 0.5))} ms`, 'p50 ≤ 30 ms'],
        ['GET /wallets/:address p50 / p99', `${ms(percentile(one, 0.5))} / ${ms(percentile(one, 0.99))} ms`, '', ''],
      ],
      ['left', 'right', 'left', 'left'],
    ),
  )
} finally {
  await clickhouse.command({ query: `DROP DATABASE IF EXISTS ${tables.database}` }).catch(() => undefined)
  await clickhouse.close()
  const redis = createRedis(config.redis.url)
  await deleteKeysWithPrefix(redis, config.redis.prefix).finally(() => redis.disconnect())
  rmSync(dataDir, { recursive: true, force: true })
}
