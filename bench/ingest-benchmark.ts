/**
 * `npm run bench:ingest`: swaps/s through the whole path (producer → Redis → worker →
 * ClickHouse, until a read sees them all) on a fresh embedded store, next to the rate of
 * inserting the same rows straight through @clickhouse/client in the same run (as
 * JSONCompactEachRow, the worker's format, and as JSONEachRow).
 * BENCH_SWAPS (default 1,000,000) and BENCH_JOB_SIZE (5,000) tune it; INGEST_* as usual.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { Worker as Thread } from 'node:worker_threads'
import { loadConfig } from '../shared/config.js'
import { openRuntime } from '../shared/bootstrap.js'
import { applyInsertDurability } from '../shared/insert-durability.js'
import { migrate } from '../shared/migrate.js'
import { swapEntryTables } from '../shared/schema/swaps-schema.js'
import { tablesFor } from '../shared/tables.js'
import { QueueFactory } from '../shared/queue-factory.js'
import { QueueNames } from '../shared/queues.js'
import { createRedis, deleteKeysWithPrefix } from '../shared/redis.js'
import { swapRecord } from '../shared/records.js'
import { startIngestRole } from '../ingest/role.js'
import { swapRow } from '../ingest/pipeline/table-rows.js'
import { compactRows } from '../ingest/pipeline/compact-rows.js'
import { syntheticSwap } from './ingest/synthetic-swaps.js'

const total = Number(process.env.BENCH_SWAPS ?? 1_000_000)
const jobSize = Number(process.env.BENCH_JOB_SIZE ?? 5_000)
const directBatch = 100_000

const dataDir = mkdtempSync(join(tmpdir(), 'smartmoney-bench-'))
const tag = randomBytes(4).toString('hex')
const config = loadConfig({
  ...process.env,
  CLICKHOUSE_URL: undefined,
  CLICKHOUSE_PATH: dataDir,
  CLICKHOUSE_DATABASE: `bench_${tag}`,
  REDIS_PREFIX: `bench-${tag}`,
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
})
const runtime = await openRuntime(config, 'bench')
const { clickhouse, tables } = runtime
const redis = createRedis(config.redis.url)

try {
  console.log(`${total.toLocaleString('en')} swaps, jobs of ${jobSize}, concurrency ${config.ingest.concurrency}, flush ${config.ingest.flushRows} rows / ${config.ingest.flushMs} ms`)

  // 1. End to end.
  const role = await startIngestRole(runtime)
  const queues = new QueueFactory(config, runtime.logger)
  const queue = queues.queue(QueueNames.ingest)
  // A thread cannot load TypeScript by itself: it registers tsx, then imports the producer.
  const producerUrl = new URL('./ingest/producer-thread.ts', import.meta.url).href
  const producer = new Thread(`import('tsx/esm/api').then(({ tsImport }) => tsImport(${JSON.stringify(producerUrl)}, ${JSON.stringify(import.meta.url)}))`, {
    eval: true,
    workerData: { config: { redis: config.redis, ingest: config.ingest }, total, jobSize, jobsPerCall: 4 },
  })
  const nextMessage = () =>
    new Promise<void>((resolve, reject) => {
      producer.once('message', () => resolve())
      producer.once('error', reject)
    })
  await nextMessage() // records built
  const started = performance.now()
  const cpuStart = process.cpuUsage()
  producer.postMessage('go')
  const produced = nextMessage().then(() => performance.now() - started)
  // Every job enqueued, then none left to do (completed jobs are pruned beyond 10,000, so
  // they are not counted).
  let enqueued = false
  void produced.then(() => (enqueued = true))
  for (;;) {
    const counts = await queue.getJobCounts('wait', 'active', 'delayed', 'prioritized', 'failed')
    if ((counts.failed ?? 0) > 0) throw new Error(`${counts.failed} ingest jobs failed`)
    const left = (counts.wait ?? 0) + (counts.active ?? 0) + (counts.delayed ?? 0) + (counts.prioritized ?? 0)
    if (enqueued && left === 0) break
    await new Promise((r) => setTimeout(r, 20))
  }
  const visible = await countFinal(tables.swaps)
  const endToEndMs = performance.now() - started
  const cpu = process.cpuUsage(cpuStart)
  if (visible !== total) throw new Error(`expected ${total} swaps, a read sees ${visible}`)
  const enqueueMs = await produced
  await role.stop()
  await queues.close()
  const endToEnd = total / (endToEndMs / 1000)
  console.log(`enqueue done after ${(enqueueMs / 1000).toFixed(2)} s`)
  console.log(`end to end:   ${Math.round(endToEnd).toLocaleString('en')} swaps/s (${(endToEndMs / 1000).toFixed(2)} s; process CPU ${(((cpu.user + cpu.system) / 1000 / endToEndMs) * 100).toFixed(0)}%)`)

  // 2. The same rows straight through @clickhouse/client, prepared before the clock, into
  // tables of the same shape: as JSONCompactEachRow (the format the worker uses, and the
  // faster one: the ratio's reference) and as JSONEachRow (the plain object rows).
  const rows = Array.from({ length: total }, (_, i) => swapRow(swapRecord.parse(syntheticSwap(i)), Date.now()))
  const compact = compactRows(rows)
  const compactRate = await directInsert('swaps_direct_compact', (table, from, to) =>
    clickhouse.insert({ table, columns: compact.columns, values: compact.values.slice(from, to), format: 'JSONCompactEachRow' }),
  )
  const jsonRate = await directInsert('swaps_direct_json', (table, from, to) =>
    clickhouse.insert({ table, values: rows.slice(from, to), format: 'JSONEachRow' }),
  )
  // 3. The same rows through the swaps entry table of a second, empty store: the views that
  // keep the access paths (by time, hash, wallet, token) and the candle marks included.
  const viewsTables = tablesFor(`${tables.database}_views`)
  await migrate(clickhouse, viewsTables)
  await applyInsertDurability(clickhouse, viewsTables, config.storage) // as the service's own tables (CLICKHOUSE_FSYNC)
  const viewsRate = await timedInsert(viewsTables.swapsIncoming, viewsTables.swaps, async (_, from, to) => {
    for (const table of swapEntryTables(viewsTables)) {
      await clickhouse.insert({ table, columns: compact.columns, values: compact.values.slice(from, to), format: 'JSONCompactEachRow' })
    }
  })
  await clickhouse.command({ query: `DROP DATABASE IF EXISTS ${viewsTables.database}` })
  console.log(`direct insert into a bare table: ${Math.round(compactRate).toLocaleString('en')} rows/s as JSONCompactEachRow, ${Math.round(jsonRate).toLocaleString('en')} as JSONEachRow (batches of ${directBatch.toLocaleString('en')})`)
  console.log(`direct insert through the swaps entry tables and their views: ${Math.round(viewsRate).toLocaleString('en')} rows/s (JSONCompactEachRow)`)
  console.log(`ratio end-to-end / direct: ${(endToEnd / viewsRate).toFixed(2)} against the entry table with its views, ${(endToEnd / compactRate).toFixed(2)} against a bare table`)
} finally {
  await deleteKeysWithPrefix(redis, config.redis.prefix)
  redis.disconnect()
  await clickhouse.close()
  rmSync(dataDir, { recursive: true, force: true })
}

/** Rows/s of inserting every row in batches through `insert` into a bare table shaped like the swaps. */
async function directInsert(name: string, insert: (table: string, from: number, to: number) => Promise<unknown>): Promise<number> {
  const table = `${tables.database}.${name}`
  await clickhouse.command({ query: `CREATE TABLE ${table} AS ${tables.swaps}` })
  return timedInsert(table, table, insert)
}

/** Rows/s of inserting every row in batches into `table`, until a read of `readBack` sees them all. */
async function timedInsert(
  table: string,
  readBack: string,
  insert: (table: string, from: number, to: number) => Promise<unknown>,
): Promise<number> {
  const started = performance.now()
  for (let i = 0; i < total; i += directBatch) await insert(table, i, i + directBatch)
  const visible = await countFinal(readBack)
  const ms = performance.now() - started
  if (visible !== total) throw new Error(`expected ${total} rows in ${readBack}, a read sees ${visible}`)
  return total / (ms / 1000)
}

async function countFinal(table: string): Promise<number> {
  const rs = await clickhouse.query({ query: `SELECT count() AS n FROM ${table} FINAL`, format: 'JSONEachRow' })
  const [row] = await rs.json<{ n: string }>()
  return Number(row!.n)
}
