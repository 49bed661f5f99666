/**
 * `npm run bench:ingest`: swaps/s through the whole path (producer → Redis → worker →
 * ClickHouse, until a read sees them all) on a fresh embedded store; then the backfill
 * command on an NDJSON file of as many new swaps (read, validate, enqueue, insert,
 * `--wait`); then, in the same run, the rate of inserting the same rows straight into
 * ClickHouse, JSONCompactEachRow (the worker's format), in batches of 100,000, by the two
 * direct paths: chDB's native raw insert (the fastest, the embedded service's own path) and
 * @clickhouse/client's `exec` (the body appended to the INSERT text), each into a bare
 * table and through the swaps entry tables with their views.
 * BENCH_SWAPS (default 1,000,000) and BENCH_JOB_SIZE (5,000) tune it; INGEST_* as usual.
 */
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { Readable } from 'node:stream'
import { finished } from 'node:stream/promises'
import { spawn } from 'node:child_process'
import { Worker as Thread } from 'node:worker_threads'
import { loadConfig } from '../shared/platform/config.js'
import { openRuntime } from '../shared/bootstrap.js'
import { applyInsertDurability } from '../shared/storage/insert-durability.js'
import { migrate } from '../shared/storage/migrate.js'
import { swapEntryTables } from '../shared/storage/schema/swaps-schema.js'
import { tablesFor } from '../shared/storage/tables.js'
import { QueueFactory } from '../shared/platform/queue-factory.js'
import { QueueNames } from '../shared/platform/queues.js'
import { createRedis, deleteKeysWithPrefix } from '../shared/platform/redis.js'
import { swapRecord } from '../shared/records/records.js'
import { startIngestRole } from '../ingest/role.js'
import { swapRow } from '../ingest/pipeline/table-rows.js'
import { encodeRows, type EncodedRows } from '../ingest/pipeline/compact-rows.js'
import { insertFormatted } from '../shared/storage/clickhouse.js'
import { syntheticSwap } from './ingest/synthetic-swaps.js'
import { count, markdownTable } from './report.js'

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
  const endToEnd = total / (endToEndMs / 1000)
  console.log(`enqueue done after ${(enqueueMs / 1000).toFixed(2)} s`)
  console.log(`end to end:   ${Math.round(endToEnd).toLocaleString('en')} swaps/s (${(endToEndMs / 1000).toFixed(2)} s; process CPU ${(((cpu.user + cpu.system) / 1000 / endToEndMs) * 100).toFixed(0)}%)`)

  // 2. The backfill command (its own process, as an operator runs it) on a file of as many
  // new swaps, with --wait: until every job is acknowledged by this process's workers.
  const file = join(dataDir, 'backfill-swaps.ndjson')
  await writeNdjson(file, total, total)
  const backfillStarted = performance.now()
  const backfill = await runCommand(['--import', 'tsx', 'ingest/cli/backfill-cli.ts', '--type', 'swap', '--wait', file], {
    REDIS_URL: config.redis.url,
    REDIS_PREFIX: config.redis.prefix,
    LOG_LEVEL: 'warn',
  })
  const backfillMs = performance.now() - backfillStarted
  if (backfill.code !== 0) throw new Error(`backfill exited ${backfill.code}: ${backfill.stderr.slice(-2_000)}`)
  const afterBackfill = await countFinal(tables.swaps)
  if (afterBackfill !== 2 * total) throw new Error(`expected ${2 * total} swaps after the backfill, a read sees ${afterBackfill}`)
  const backfillRate = total / (backfillMs / 1000)
  console.log(`backfill --wait of a ${count(total)}-swap NDJSON file: ${count(backfillRate)} swaps/s (${(backfillMs / 1000).toFixed(2)} s, the command's start included)`)
  await role.stop()
  await queues.close()

  // 3. The same rows straight into ClickHouse, encoded before the clock as the worker
  // encodes them: into a bare table of the swaps' shape, and through the swaps entry tables
  // of a second, empty store (the views that keep the access paths by time, hash, wallet
  // and token, and the candle marks), by each direct path.
  const batches: EncodedRows[] = []
  for (let i = 0; i < total; i += directBatch) {
    const rows = []
    for (let j = i; j < Math.min(total, i + directBatch); j++) rows.push(swapRow(swapRecord.parse(syntheticSwap(j)), Date.now()))
    batches.push(encodeRows(rows))
  }
  const paths: Record<string, DirectPath> = {
    'chDB native raw insert': (table, b) => insertFormatted(clickhouse, { table, columns: b.columns, texts: [b.text] }),
    '@clickhouse/client exec': async (table, b) => {
      const query = `INSERT INTO ${table} (${b.columns.join(', ')}) FORMAT JSONCompactEachRow`
      const result = await clickhouse.exec({ query, values: Readable.from([b.text]) })
      result.stream.resume()
      await finished(result.stream)
    },
  }
  const results: { path: string; bare: number; views: number }[] = []
  let store = 0
  for (const [path, insert] of Object.entries(paths)) {
    const bareTable = `${tables.database}.swaps_direct_${store}`
    await clickhouse.command({ query: `CREATE TABLE ${bareTable} AS ${tables.swaps}` })
    const bare = await timedInsert(bareTable, batches, (b) => insert(bareTable, b))
    const viewsTables = tablesFor(`${tables.database}_views_${store++}`)
    await migrate(clickhouse, viewsTables)
    await applyInsertDurability(clickhouse, viewsTables, config.storage) // as the service's own tables (CLICKHOUSE_FSYNC)
    const views = await timedInsert(viewsTables.swaps, batches, async (b) => {
      for (const table of swapEntryTables(viewsTables)) await insert(table, b)
    })
    await clickhouse.command({ query: `DROP DATABASE IF EXISTS ${viewsTables.database}` })
    results.push({ path, bare, views })
  }
  console.log(`\ndirect inserts of the same ${count(total)} rows, JSONCompactEachRow, batches of ${count(directBatch)}:`)
  console.log(
    markdownTable(
      ['path', 'bare table rows/s', 'through the views rows/s', 'end to end / through the views'],
      results.map((r) => [r.path, count(r.bare), count(r.views), (endToEnd / r.views).toFixed(2)]),
      ['left', 'right', 'right', 'right'],
    ),
  )
  const fastest = Math.max(...results.map((r) => r.views))
  console.log(`end to end ${count(endToEnd)} swaps/s = ${(endToEnd / fastest).toFixed(2)} of the fastest direct path through the views; backfill ${(backfillRate / fastest).toFixed(2)}`)
} finally {
  await deleteKeysWithPrefix(redis, config.redis.prefix)
  redis.disconnect()
  await clickhouse.close()
  rmSync(dataDir, { recursive: true, force: true })
}

/** One insert of an encoded batch into a table. */
type DirectPath = (table: string, batch: EncodedRows) => Promise<void>

/** Rows/s of inserting every batch, until a read of `readBack` sees them all. */
async function timedInsert(readBack: string, batches: readonly EncodedRows[], insert: (batch: EncodedRows) => Promise<void>): Promise<number> {
  const started = performance.now()
  for (const b of batches) await insert(b)
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

/** An NDJSON file of `n` synthetic swaps from index `from`. */
async function writeNdjson(path: string, from: number, n: number): Promise<void> {
  const out = createWriteStream(path)
  for (let i = from; i < from + n; i += 10_000) {
    const lines = []
    for (let j = i; j < Math.min(from + n, i + 10_000); j++) lines.push(JSON.stringify(syntheticSwap(j)))
    if (!out.write(`${lines.join('\n')}\n`)) await new Promise<void>((resolve) => out.once('drain', () => resolve()))
  }
  out.end()
  await finished(out)
}

/** Runs node with these arguments in the repository, with the environment additions; its exit code and stderr. */
function runCommand(args: string[], env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: new URL('..', import.meta.url), env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stderr }))
  })
}
