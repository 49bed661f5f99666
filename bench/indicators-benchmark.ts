/**
 * `npm run bench:indicators [-- TOKENS CANDLES LONG_CANDLES]`: the indicator engine on a
 * fresh temporary embedded store, in one run:
 * 1. the full recompute of TOKENS x CANDLES (default 10,000 x 500) closed 4-hour candles
 *    end to end (stored candles read from ClickHouse, gap filling, indicators, results and
 *    states written to Redis under the per-token locks), with the math alone on the same
 *    histories held in memory beside it;
 * 2. the incremental step after one new 4-hour interval, on the same store and on a
 *    second one of TOKENS x LONG_CANDLES (default 2,190: a year), to show its cost does
 *    not depend on history length.
 * The fixture is written straight into the stored one-hour candles (one hour per 4-hour
 * interval, 1 in 10 delivered twice in a separate unmerged part, so reads must deduplicate):
 * what the candle refresher would have stored from raw records, without its cost.
 * Background merges of the stored candles are held off from before the fixture's rows are
 * written to the end of the run: the parts stay as written (every read deduplicates across
 * them), and a merge of the millions of rows just written, which the engine never causes,
 * does not compete with the runs for the two cores (it took ~3 s of CPU during the full
 * recompute, more than the recompute's own reads).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import { loadConfig } from '../shared/platform/config.js'
import { openRuntime } from '../shared/bootstrap.js'
import { refreshCandles } from '../shared/candles/candle-refresh.js'
import { CANDLE_MS, lastClosedCandleStart } from '../shared/candles/candles.js'
import type { ClickHouseClient } from '../shared/storage/clickhouse.js'
import { createRedis, deleteKeysWithPrefix } from '../shared/platform/redis.js'
import type { Runtime } from '../shared/runtime.js'
import { tablesFor, type Tables } from '../shared/storage/tables.js'
import { migrate } from '../shared/storage/migrate.js'
import { addressRanges, stateFromHistory } from '../indicators/candle-series.js'
import { readHistories, type TokenHistory } from '../indicators/token-histories.js'
import { technicalAnalysisOf } from '../indicators/compute-indicators.js'
import { IndicatorEngine, type RunTimes } from '../indicators/engine.js'
import { bareTokenMeta } from '../indicators/token-metadata.js'
import { count, markdownTable, ms } from './report.js'

const TOKENS = Number(process.argv[2] ?? 10_000)
const CANDLES = Number(process.argv[3] ?? 500)
const LONG_CANDLES = Number(process.argv[4] ?? 2_190)
const HOUR_MS = 3_600_000

const conditions = () => `load average ${loadavg().map((l) => l.toFixed(2)).join(' / ')}`
console.log(`bench:indicators on ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), Node ${process.version}, ${new Date().toISOString()}`)
console.log(`at start: ${conditions()} (other processes on the machine count: the figures move with them)`)

const dataDir = mkdtempSync(join(tmpdir(), 'smartmoney-bench-indicators-'))
const tag = randomBytes(4).toString('hex')
const config = loadConfig({
  CLICKHOUSE_PATH: dataDir,
  CLICKHOUSE_DATABASE: `bench_${tag}`,
  REDIS_URL: loadConfig().redis.url,
  REDIS_PREFIX: `bench-indicators-${tag}`,
  LOG_LEVEL: 'warn',
})
const runtime: Runtime = await openRuntime(config, 'bench')
const redis = createRedis(config.redis.url)
const longTables = tablesFor(`bench_${tag}_long`)
let now = Date.now()
const clock = () => now
const seconds = (millis: number) => `${(millis / 1000).toFixed(2)} s`
const perSecond = (tokens: number, millis: number) => count(tokens / (millis / 1000))

/** Stored one-hour candles for `tokens` x `candles` 4-hour intervals ending with the last closed one, and the tokens' metadata. */
async function writeFixture(clickhouse: ClickHouseClient, tables: Tables, candles: number): Promise<void> {
  // The tokens first: a token's metadata changes its whole history, re-aggregated from raw
  // records, which this fixture has none of; one refresh takes those changes in.
  await clickhouse.command({
    query: `INSERT INTO ${tables.tokens} (contract_address, id, chain_id, name, symbol, decimals, updated_at)
      SELECT concat('0x', lower(hex(substring(SHA256(toString(number)), 1, 20)))) AS a, a, 1, concat('Bench ', toString(number)),
             concat('B', toString(number)), 18, now64(3)
      FROM numbers({tokens:UInt64})`,
    query_params: { tokens: TOKENS },
  })
  await refreshCandles(clickhouse, tables)
  await clickhouse.command({ query: `SYSTEM STOP MERGES ${tables.candles1h}` })
  const lastClosed = lastClosedCandleStart(now)
  await appendIntervals(clickhouse, tables, (lastClosed - (candles - 1) * CANDLE_MS) / HOUR_MS, candles)
  // 1 in 10 rows a second time, an older version in its own part, as a re-aggregation leaves them.
  await clickhouse.command({
    query: `INSERT INTO ${tables.candles1h} SELECT token, hour, open, high, low, close, volume, computed_at - 1, 0
            FROM ${tables.candles1h} WHERE cityHash64(token, hour) % 10 = 0`,
  })
}

/**
 * `intervals` 4-hour intervals from `firstHour` of every token: one stored hour each, a
 * deterministic wiggle around 100 so every indicator has movement to measure. Addresses
 * are hashes, spread over the address space like real ones.
 */
async function appendIntervals(clickhouse: ClickHouseClient, tables: Tables, firstHour: number, intervals: number): Promise<void> {
  await clickhouse.command({
    query: `INSERT INTO ${tables.candles1h} (token, hour, open, high, low, close, volume, computed_at)
      SELECT concat('0x', lower(hex(substring(SHA256(toString(intDiv(number, {n:UInt64}))), 1, 20)))) AS token,
             toUInt32({first:UInt32} + (number % {n:UInt64}) * 4) AS hour,
             100 + 10 * sin(hour / 28) + (cityHash64(token, hour) % 1000) / 500 AS c,
             c + (cityHash64(token, hour, 1) % 100) / 100, c - (cityHash64(token, hour, 2) % 100) / 100, c,
             cityHash64(token, hour, 3) % 10000, now64(3)
      FROM numbers({rows:UInt64})`,
    query_params: { n: intervals, first: firstHour, rows: TOKENS * intervals },
    clickhouse_settings: { max_insert_block_size: '1000000' },
  })
}

/** How many active parts hold the stored candles. */
async function partsOf(clickhouse: ClickHouseClient, tables: Tables): Promise<number> {
  const rs = await clickhouse.query({
    query: `SELECT count() AS parts FROM system.parts WHERE database = {database:String} AND table = {table:String} AND active`,
    query_params: { database: tables.database, table: tables.candles1h.slice(tables.database.length + 1) },
    format: 'JSONEachRow',
  })
  return Number((await rs.json<{ parts: string }>())[0]?.parts ?? 0)
}

function engineOn(tables: Tables, prefix: string): IndicatorEngine {
  return new IndicatorEngine(
    { clickhouse: runtime.clickhouse, tables, redis, redisPrefix: prefix, logger: runtime.logger, clock },
    { batchSize: 1000 },
  )
}

const breakdown = (t: RunTimes) => `ClickHouse waits ${seconds(t.readMs)}, math ${seconds(t.mathMs)}, Redis ${seconds(t.redisMs)}`

try {
  const { clickhouse, tables } = runtime
  let t0 = performance.now()
  await writeFixture(clickhouse, tables, CANDLES)
  console.log(`fixture: ${count(TOKENS)} tokens x ${count(CANDLES)} candles written in ${seconds(performance.now() - t0)}; ${await partsOf(clickhouse, tables)} parts, merges held off`)

  // 1. Full recompute, end to end.
  const engine = engineOn(tables, config.redis.prefix)
  const elu = performance.eventLoopUtilization()
  t0 = performance.now()
  const full = await engine.recomputeAll()
  const fullMs = performance.now() - t0
  const busy = performance.eventLoopUtilization(elu).utilization
  if (full.written !== TOKENS) throw new Error(`wrote ${full.written} results, expected ${TOKENS}`)

  // The same histories in memory: the read alone, then the math alone.
  const lastClosed = lastClosedCandleStart(now)
  t0 = performance.now()
  const histories: TokenHistory[] = []
  for (const [lo, hi] of addressRanges(8)) histories.push(...(await readHistories(clickhouse, tables, { lo, hi }, lastClosed)))
  const readAloneMs = performance.now() - t0
  t0 = performance.now()
  const timestamp = new Date(now).toISOString()
  for (const h of histories) JSON.stringify(technicalAnalysisOf(stateFromHistory(h, lastClosed), bareTokenMeta(h.contractAddress), timestamp))
  const mathAloneMs = performance.now() - t0

  // 2. One new 4-hour interval: the incremental step.
  const stepOnce = async (stepTables: Tables, engineForStep: IndicatorEngine) => {
    await appendIntervals(clickhouse, stepTables, lastClosedCandleStart(now) / HOUR_MS, 1)
    const t = performance.now()
    const step = await engineForStep.advance()
    const stepMs = performance.now() - t
    if (step.stepped !== TOKENS) throw new Error(`stepped ${step.stepped} tokens, expected ${TOKENS} (${JSON.stringify(step)})`)
    return { step, stepMs }
  }
  now += CANDLE_MS
  const short = await stepOnce(tables, engine)

  // The long store: its states come from a full recompute (timed, for reference), then one step.
  await migrate(clickhouse, longTables)
  now -= CANDLE_MS
  t0 = performance.now()
  await writeFixture(clickhouse, longTables, LONG_CANDLES)
  console.log(`fixture: ${count(TOKENS)} tokens x ${count(LONG_CANDLES)} candles written in ${seconds(performance.now() - t0)}; ${await partsOf(clickhouse, longTables)} parts, merges held off`)
  const longEngine = engineOn(longTables, `${config.redis.prefix}:long`)
  t0 = performance.now()
  await longEngine.recomputeAll()
  const longFullMs = performance.now() - t0
  now += CANDLE_MS
  const long = await stepOnce(longTables, longEngine)

  console.log(`\nat the end: ${conditions()}\n`)
  console.log(
    markdownTable(
      ['Run', 'tokens', 'candles', 'time', 'tokens/s', 'where the time went'],
      [
        ['full recompute, end to end (target >= 5,000 tokens/s)', count(TOKENS), count(CANDLES), seconds(fullMs), perSecond(TOKENS, fullMs), `${breakdown(full)}; JavaScript busy ${Math.round(busy * 100)}%`],
        ['  reference: histories read alone (8 slices, one after another)', count(TOKENS), count(CANDLES), seconds(readAloneMs), perSecond(TOKENS, readAloneMs), 'ClickHouse query + decoding'],
        ['  reference: math alone, histories in memory', count(TOKENS), count(CANDLES), seconds(mathAloneMs), perSecond(TOKENS, mathAloneMs), 'gap filling, indicators, JSON'],
        ['incremental step, one new interval (target <= 2 s)', count(TOKENS), count(CANDLES + 1), seconds(short.stepMs), perSecond(TOKENS, short.stepMs), breakdown(short.step)],
        ['incremental step, one new interval (target <= 2 s)', count(TOKENS), count(LONG_CANDLES + 1), seconds(long.stepMs), perSecond(TOKENS, long.stepMs), breakdown(long.step)],
        ['  reference: full recompute of the long store', count(TOKENS), count(LONG_CANDLES), seconds(longFullMs), perSecond(TOKENS, longFullMs), ''],
      ],
      ['left', 'right', 'right', 'right', 'right', 'left'],
    ),
  )
  console.log(`\nincremental step, ${count(LONG_CANDLES + 1)} vs ${count(CANDLES + 1)} candles: ${(long.stepMs / short.stepMs).toFixed(2)}x the time (history length ${((LONG_CANDLES + 1) / (CANDLES + 1)).toFixed(1)}x); per step ${ms(short.stepMs)} ms vs ${ms(long.stepMs)} ms`)
} finally {
  await deleteKeysWithPrefix(redis, config.redis.prefix)
  redis.disconnect()
  await runtime.clickhouse.command({ query: `DROP DATABASE IF EXISTS ${runtime.tables.database}` })
  await runtime.clickhouse.command({ query: `DROP DATABASE IF EXISTS ${longTables.database}` })
  await runtime.clickhouse.close()
  rmSync(dataDir, { recursive: true, force: true })
}
