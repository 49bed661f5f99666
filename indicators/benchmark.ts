/**
 * `npm run bench:indicators`: a full recompute of 10,000 tokens x 500 closed 4-hour
 * candles, end to end (candles aggregated in ClickHouse, indicators, Redis writes), on
 * a fresh temporary embedded store; and, in the same run, the indicator math alone.
 * `npm run bench:indicators -- TOKENS CANDLES` overrides the size (e.g. for a quick try).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import { loadConfig } from '../shared/config.js'
import { openRuntime } from '../shared/bootstrap.js'
import { refreshCandles } from '../shared/candle-refresh.js'
import { CANDLE_MS, candlesSql, dateTime64Param, lastClosedCandleStart } from '../shared/candles.js'
import { createRedis, deleteKeysWithPrefix } from '../shared/redis.js'
import { IndicatorEngine } from './engine.js'
import { forEachClosedSeries, type TokenSeries } from './candle-series.js'
import { computeTechnicalAnalysis } from './compute-indicators.js'
import { bareTokenMeta } from './token-metadata.js'

const TOKENS = Number(process.argv[2] ?? 10_000)
const CANDLES = Number(process.argv[3] ?? 500)

const dataDir = mkdtempSync(join(tmpdir(), 'smartmoney-bench-indicators-'))
const tag = randomBytes(4).toString('hex')
const baseEnv = loadConfig()
const config = loadConfig({
  CLICKHOUSE_PATH: dataDir,
  CLICKHOUSE_DATABASE: `bench_${tag}`,
  REDIS_URL: baseEnv.redis.url,
  REDIS_PREFIX: `bench-indicators-${tag}`,
  LOG_LEVEL: 'warn',
})
const runtime = await openRuntime(config, 'bench')
const redis = createRedis(config.redis.url)
const now = Date.now()
const lastClosed = lastClosedCandleStart(now)
const firstCandle = lastClosed - (CANDLES - 1) * CANDLE_MS
const seconds = (ms: number) => (ms / 1000).toFixed(2)

try {
  const { clickhouse, tables } = runtime
  const fixtureStart = performance.now()
  const rows = TOKENS * CANDLES
  // One price observation per token and interval, generated inside ClickHouse: a
  // deterministic wiggle around 100 so every indicator has movement to measure.
  // Addresses are hashes, spread over the address space like real ones.
  await clickhouse.command({
    query: `INSERT INTO ${tables.prices} (contract_address, timestamp, price_usd, volume_usd, ingested_at)
      SELECT concat('0x', lower(hex(substring(SHA256(toString(intDiv(number, {candles:UInt64}))), 1, 20)))),
             fromUnixTimestamp64Milli(toInt64({first:Int64} + (number % {candles:UInt64}) * {step:Int64} + 60000), 'UTC'),
             100 + 10 * sin(number / 7) + (cityHash64(number) % 1000) / 500,
             cityHash64(number, 1) % 10000,
             now64(3)
      FROM numbers({rows:UInt64})`,
    query_params: { candles: CANDLES, first: firstCandle, step: CANDLE_MS, rows },
    clickhouse_settings: { max_insert_block_size: '1000000' },
  })
  // 1 in 10 observations delivered a second time (its own unmerged part), as retries do:
  // the reads must deduplicate them.
  await clickhouse.command({
    query: `INSERT INTO ${tables.prices} (contract_address, timestamp, price_usd, volume_usd, ingested_at)
      SELECT contract_address, timestamp, price_usd, volume_usd, now64(3) + 1 FROM ${tables.prices}
      WHERE cityHash64(contract_address, timestamp) % 10 = 0`,
  })
  await clickhouse.command({
    query: `INSERT INTO ${tables.tokens} (contract_address, id, chain_id, name, symbol, decimals, updated_at)
      SELECT concat('0x', lower(hex(substring(SHA256(toString(number)), 1, 20)))) AS a, a, 1, concat('Bench ', toString(number)),
             concat('B', toString(number)), 18, now64(3)
      FROM numbers({tokens:UInt64})`,
    query_params: { tokens: TOKENS },
  })
  console.log(`fixture: ${TOKENS} tokens x ${CANDLES} candles = ${rows} price rows (+10% re-delivered) in ${seconds(performance.now() - fixtureStart)} s`)
  // The stored candles take in the fixture first, as the indicator role's refresher does
  // within a second of any insert (twice: its last seconds of marks are read again).
  const refreshStart = performance.now()
  await refreshCandles(clickhouse, tables)
  await new Promise((resolve) => setTimeout(resolve, 6_000))
  await refreshCandles(clickhouse, tables)
  console.log(`stored candles aggregated from the fixture in ${seconds(performance.now() - refreshStart - 6_000)} s (not in the figures below)`)

  const engine = new IndicatorEngine(
    { clickhouse, tables, redis, redisPrefix: config.redis.prefix, logger: runtime.logger },
    { batchSize: 1000 },
  )
  const started = performance.now()
  const elu = performance.eventLoopUtilization()
  const result = await engine.recomputeAll(now)
  const endToEndMs = performance.now() - started
  const busy = performance.eventLoopUtilization(elu).utilization
  if (result.written !== TOKENS) throw new Error(`wrote ${result.written} results, expected ${TOKENS}`)

  // The same series, held in memory, through the indicator math alone.
  const series: TokenSeries[] = []
  const queryStart = performance.now()
  await forEachClosedSeries(clickhouse, tables, { now }, async (slice) => {
    series.push(...slice)
  })
  const queryMs = performance.now() - queryStart
  const mathStart = performance.now()
  for (const s of series) computeTechnicalAnalysis(s, bareTokenMeta(s.contractAddress), new Date(now))
  const mathMs = performance.now() - mathStart

  // What deduplication costs: the candle aggregation with FINAL (as served) and without.
  const before = dateTime64Param(lastClosed + CANDLE_MS)
  const timeCount = async (sql: string) => {
    const t0 = performance.now()
    const rs = await clickhouse.query({ query: `SELECT count() AS n FROM (${sql})`, query_params: { before }, format: 'JSONEachRow' })
    const [row] = await rs.json<{ n: string }>()
    return { ms: performance.now() - t0, candles: Number(row?.n) }
  }
  const withFinal = await timeCount(candlesSql(tables))
  const withoutFinal = await timeCount(candlesSql(tables).replaceAll(' FINAL', ''))

  console.log(`end to end (ClickHouse candles -> indicators -> Redis): ${TOKENS} tokens in ${seconds(endToEndMs)} s = ${Math.round(TOKENS / (endToEndMs / 1000))} tokens/s (target >= 1,000)`)
  console.log(`  of which indicator math (measured inside the run): ${seconds(result.mathMs)} s; JavaScript thread busy ${Math.round(busy * 100)}% of the run`)
  console.log(`reference, same run: candles query + gap filling alone ${seconds(queryMs)} s; indicator math alone on in-memory series ${seconds(mathMs)} s = ${Math.round(TOKENS / (mathMs / 1000))} tokens/s`)
  console.log(`candle aggregation alone: ${seconds(withFinal.ms)} s reading with FINAL (${withFinal.candles} candles), ${seconds(withoutFinal.ms)} s without deduplication (wrong: re-delivered volumes counted twice)`)
} finally {
  await deleteKeysWithPrefix(redis, config.redis.prefix)
  redis.disconnect()
  await runtime.clickhouse.command({ query: `DROP DATABASE IF EXISTS ${runtime.tables.database}` })
  await runtime.clickhouse.close()
  rmSync(dataDir, { recursive: true, force: true })
}
