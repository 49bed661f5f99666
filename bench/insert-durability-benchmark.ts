/**
 * `npx tsx bench/insert-durability-benchmark.ts`: what durable inserts (CLICKHOUSE_FSYNC)
 * cost. BENCH_SWAPS swaps (default 200,000) through the real batch writer into the swaps
 * entry table and its views of a fresh embedded database, in jobs of 5,000 with 16 in hand
 * (the ingest role's defaults), alternating: without fsync (the reference), with
 * fsync_after_insert + fsync_part_directory (the default), and with merged parts fsynced
 * too. BENCH_REPEATS rounds (default 3); prints each run, the medians and ClickHouse's
 * count of fsync calls.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { BatchWriter } from '../ingest/pipeline/batch-writer.js'
import type { EncodedRows } from '../ingest/pipeline/compact-rows.js'
import { syntheticSwap } from './ingest/synthetic-swaps.js'
import { swapLines } from '../ingest/pipeline/swap-lines.js'
import { createClickHouse } from '../shared/storage/clickhouse.js'
import { applyInsertDurability } from '../shared/storage/insert-durability.js'
import { createLogger } from '../shared/platform/logger.js'
import { migrate } from '../shared/storage/migrate.js'
import { queryRows } from '../shared/storage/query-rows.js'
import { swapEntryTables } from '../shared/storage/schema/swaps-schema.js'
import { tablesFor } from '../shared/storage/tables.js'

const total = Number(process.env.BENCH_SWAPS ?? 200_000)
const repeats = Number(process.env.BENCH_REPEATS ?? 3)
const JOB = 5_000
const IN_HAND = 16
const variants = ['no fsync', 'fsync inserts', 'fsync inserts and merges'] as const
type Variant = (typeof variants)[number]

const dir = mkdtempSync(join(tmpdir(), 'smartmoney-durability-'))
const clickhouse = createClickHouse({ mode: 'embedded', path: dir, database: 'bench' })
const logger = createLogger('warn')
const records = Array.from({ length: total }, (_, i) => syntheticSwap(i))
const rates = new Map<Variant, number[]>(variants.map((v) => [v, []]))

async function fsyncCalls(): Promise<number> {
  const [row] = await queryRows<{ n: string }>(clickhouse, "SELECT toString(sum(value)) AS n FROM system.events WHERE event IN ('FileSync', 'DirectorySync')")
  return Number(row?.n ?? 0)
}

try {
  console.log(`${total.toLocaleString('en')} swaps per run, jobs of ${JOB}, ${IN_HAND} in hand, ${repeats} rounds; load average now ${loadavg()[0]!.toFixed(1)}`)
  let run = 0
  for (let round = 0; round < repeats; round++) {
    for (const variant of variants) {
      const tables = tablesFor(`durability_${run++}`)
      await migrate(clickhouse, tables)
      await applyInsertDurability(clickhouse, tables, { fsync: variant !== 'no fsync' })
      if (variant === 'fsync inserts and merges') {
        for (const { name } of await queryRows<{ name: string }>(clickhouse, "SELECT name FROM system.tables WHERE database = {db:String} AND engine LIKE '%MergeTree'", { db: tables.database })) {
          await clickhouse.command({ query: `ALTER TABLE ${tables.database}.${name} MODIFY SETTING min_rows_to_fsync_after_merge = 1` })
        }
      }
      const jobs: EncodedRows[] = []
      for (let i = 0; i < total; i += JOB) jobs.push(swapLines(records.slice(i, i + JOB), Date.now()).encoded)
      const writer = new BatchWriter(clickhouse, { flushRows: 40_000, flushMs: 500, flushWhenWaiting: IN_HAND }, logger)
      const syncsBefore = await fsyncCalls()
      const started = performance.now()
      let next = 0
      await Promise.all(
        Array.from({ length: IN_HAND }, async () => {
          while (next < jobs.length) await writer.write([{ table: swapEntryTables(tables), encoded: jobs[next++]! }])
        }),
      )
      const ms = performance.now() - started
      const syncs = (await fsyncCalls()) - syncsBefore
      const [count] = await queryRows<{ n: string }>(clickhouse, `SELECT toString(count()) AS n FROM ${tables.swaps} FINAL`)
      if (Number(count?.n) !== total) throw new Error(`expected ${total} swaps, read ${count?.n}`)
      rates.get(variant)!.push(total / (ms / 1000))
      console.log(`round ${round + 1} ${variant.padEnd(25)} ${Math.round(total / (ms / 1000)).toLocaleString('en').padStart(8)} swaps/s (${(ms / 1000).toFixed(2)} s, ${syncs} fsync calls, load ${loadavg()[0]!.toFixed(1)})`)
      await clickhouse.command({ query: `DROP DATABASE ${tables.database} SYNC` })
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
  const reference = median(rates.get('no fsync')!)
  for (const variant of variants) {
    const m = median(rates.get(variant)!)
    console.log(`median ${variant.padEnd(25)} ${Math.round(m).toLocaleString('en').padStart(8)} swaps/s  ${(m / reference).toFixed(2)} of the reference`)
  }
} finally {
  await clickhouse.close()
  rmSync(dir, { recursive: true, force: true })
}
