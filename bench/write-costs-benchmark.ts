/**
 * `npm run bench:write-costs`: what each materialized view of the swaps' write path (and
 * the table it writes) costs per swap on the embedded store, beside the reference of the
 * same run: chDB's raw insert of the same rows into a bare table of the swaps' shape.
 *
 * Every measurement inserts the same rows (JSONCompactEachRow, batches of 100,000, chDB's
 * raw insert, as ingest/pipeline/batch-writer.ts does) into a fresh database of the
 * baseline schema (migrate()), from which the views a measurement leaves out are dropped:
 * - the full write path: both entry tables, every view attached, as the service runs;
 * - built up in dependency order: the entry tables alone, then one view more at a time,
 *   each added after every view that writes its source (and mv_swap_moves after the view
 *   that fills the swap_locations it looks up). A view's increment is its own cost, with
 *   its source fed as in production and nothing after it attached yet; the increments add
 *   up to the full path;
 * - left out alone: the full path without one view. What dropping that view would save,
 *   including what its rows cost further down (so these overlap: their sum is not the total).
 * The views are found from the schema itself (system.tables), from the entry tables down.
 *
 * The rows are realistic: most swaps are new, a share (BENCH_REDELIVERED, 0.02) re-delivers
 * an earlier swap: mostly identical (a retried job), some at another time (a reorg), some
 * at the same time with another wallet (a corrected producer), so the retraction lookup,
 * the moves and the tombstones run as in production. The full path's stores are checked
 * after each run (one live row per swap by time and by wallet, the moves written).
 *
 * BENCH_SWAPS (1,000,000 rows) and BENCH_REPEAT (3 runs of each measurement, in alternating
 * order; the median is reported) tune it; CLICKHOUSE_FSYNC as the service.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { loadConfig } from '../shared/platform/config.js'
import { createClickHouse, insertFormatted } from '../shared/storage/clickhouse.js'
import { applyInsertDurability } from '../shared/storage/insert-durability.js'
import { migrate } from '../shared/storage/migrate.js'
import { queryRows } from '../shared/storage/query-rows.js'
import { SWAP_MOVES_VIEW, swapEntryTables } from '../shared/storage/schema/swaps-schema.js'
import { tablesFor, type Tables } from '../shared/storage/tables.js'
import { swapRecord, type RecordInput } from '../shared/records/records.js'
import { swapRow } from '../ingest/pipeline/table-rows.js'
import { encodeRows, type EncodedRows } from '../ingest/pipeline/compact-rows.js'
import { syntheticSwap } from './ingest/synthetic-swaps.js'
import { count, markdownTable } from './report.js'

const total = Number(process.env.BENCH_SWAPS ?? 1_000_000)
const repeat = Number(process.env.BENCH_REPEAT ?? 3)
const redeliveredShare = Number(process.env.BENCH_REDELIVERED ?? 0.02)
const batchSize = 100_000

const dataDir = mkdtempSync(join(tmpdir(), 'smartmoney-write-costs-'))
const tag = randomBytes(4).toString('hex')
const config = loadConfig({ ...process.env, CLICKHOUSE_URL: undefined, CLICKHOUSE_PATH: dataDir, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' })
const clickhouse = createClickHouse(config.clickhouse, config.storage)
let databases = 0

/** What one measurement inserts into: the bare reference table, or the schema less these views. */
type Setup = { kind: 'bare' } | { kind: 'views'; drop: readonly string[] }

interface View {
  name: string
  source: string
  target: string
}

try {
  const { batches, mix, changed } = buildBatches()
  const plan = await swapPathViews()
  const names = plan.map((v) => v.name)
  const label = (v: View) => `${v.name} → ${v.target}`

  const setups = new Map<string, Setup>([
    ['bare', { kind: 'bare' }],
    ['full', { kind: 'views', drop: [] }],
  ])
  for (let i = 0; i < plan.length; i++) setups.set(`upto:${i}`, { kind: 'views', drop: names.slice(i) })
  for (const name of names) setups.set(`without:${name}`, { kind: 'views', drop: [name] })

  const loadStart = load()
  const version = (await queryRows<{ v: string }>(clickhouse, 'SELECT version() AS v'))[0]!.v
  console.log(`${count(total)} rows (${mix}), batches of ${count(batchSize)}, JSONCompactEachRow by chDB's raw insert; ClickHouse ${version} embedded, CLICKHOUSE_FSYNC=${config.storage.fsync ? 1 : 0}`)
  console.log(`${setups.size} measurements × ${repeat}, each on a fresh database, in alternating order`)

  await measure({ kind: 'views', drop: [] }, batches.slice(0, 1)) // warm-up, not counted
  const samples = new Map<string, number[]>([...setups.keys()].map((k) => [k, []]))
  for (let r = 0; r < repeat; r++) {
    const order = [...setups.entries()]
    if (r % 2 === 1) order.reverse()
    for (const [key, setup] of order) samples.get(key)!.push(await measure(setup, batches, key === 'full' ? changed : undefined))
    process.stdout.write(`run ${r + 1} of ${repeat} done\n`)
  }

  const us = (key: string) => median(samples.get(key)!)
  const bare = us('bare')
  const full = us('full')
  const builtUp = plan.map((_, i) => us(`upto:${i}`))
  const steps = [...builtUp, full]
  const marginals = plan.map((_, i) => steps[i + 1]! - steps[i]!)
  const savings = plan.map((v) => full - us(`without:${v.name}`))
  const sumMarginals = marginals.reduce((a, b) => a + b, 0)
  const sumSavings = savings.reduce((a, b) => a + b, 0)
  const rows: string[][] = []
  const row = (what: string, value: number, share: boolean, saved?: number) =>
    rows.push([
      what,
      value.toFixed(2),
      (value / bare).toFixed(2),
      share ? percent(value / full) : '',
      saved === undefined ? '' : saved.toFixed(2),
      saved === undefined ? '' : percent(saved / full),
    ])
  row('bare table of the swaps\' shape (reference)', bare, false)
  row('full write path (both entry tables, every view)', full, true)
  row('entry tables alone (Null, no view)', builtUp[0]!, true)
  plan.forEach((v, i) => row(`+ ${label(v)}`, marginals[i]!, true, savings[i]))
  row('sum: entry tables + every view added', builtUp[0]! + sumMarginals, true, sumSavings)

  const cpu = cpus()
  console.log(`\nWrite cost per swap, median of ${repeat}; ${cpu[0]?.model ?? 'unknown CPU'}, ${cpu.length} cores, load ${loadStart}–${load()}; ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`)
  console.log(`${count(total)} rows: ${mix}\n`)
  console.log(
    markdownTable(
      ['table or view → its target', 'added in order: µs/swap', '× bare insert', 'share of full', 'left out alone: µs/swap saved', 'share saved'],
      rows,
      ['left', 'right', 'right', 'right', 'right', 'right'],
    ),
  )
  console.log(
    `\nAdded in order: each view attached after every view that writes its source, so its figure is its own query and its target's writes; ` +
      `the entry tables and the views' increments add up to the last step, the full path (${(builtUp[0]! + sumMarginals).toFixed(2)} = ${full.toFixed(2)} µs/swap). ` +
      `Left out alone: the full path less one view, which also spares what that view's rows cost further down; ` +
      `those savings add up to ${sumSavings.toFixed(2)} µs/swap, ${percent(sumSavings / full)} of the full path. ` +
      `The full path costs ${(full / bare).toFixed(2)}× the bare insert.`,
  )
  const runs = (key: string) => samples.get(key)!.map((v) => v.toFixed(2)).join(', ')
  console.log(`Each run, µs/swap: bare ${runs('bare')}; full path ${runs('full')}; entry tables alone ${runs('upto:0')}.`)
} finally {
  await clickhouse.close()
  rmSync(dataDir, { recursive: true, force: true })
}

/**
 * The rows, encoded before any clock runs, in batches: a new swap, or one of the previous
 * batch re-delivered in the next one, as a retried job's rows come (in the first batch,
 * one of its own), with that batch's later ingested_at.
 */
function buildBatches(): { batches: EncodedRows[]; mix: string; changed: number } {
  const stamp = Date.now()
  const kinds = { new: 0, identical: 0, moved: 0, otherWallet: 0 }
  const batches: EncodedRows[] = []
  let fresh = 0
  let redelivered = 0
  let previousFirst = 0
  for (let start = 0; start < total; start += batchSize) {
    const first = fresh
    const rows = []
    for (let p = start; p < Math.min(total, start + batchSize); p++) {
      let input: RecordInput<'swap'>
      if (fresh > 0 && Math.floor((p + 1) * redeliveredShare) > Math.floor(p * redeliveredShare)) {
        const k = redelivered++
        const earlier = start === 0 ? syntheticSwap((k * 7_919) % fresh) : syntheticSwap(previousFirst + ((k * 7_919) % (first - previousFirst)))
        const kind = k % 10 < 7 ? 'identical' : k % 10 < 9 ? 'moved' : 'otherWallet'
        kinds[kind]++
        input =
          kind === 'identical'
            ? earlier
            : kind === 'moved'
              ? { ...earlier, block_number: Number(earlier.block_number) + 1, timestamp: Number(earlier.timestamp) + 12_000 }
              : { ...earlier, wallet_address: `0x${'7e57'.repeat(10)}` }
      } else {
        input = syntheticSwap(fresh++)
        kinds.new++
      }
      rows.push(swapRow(swapRecord.parse(input), stamp + start / batchSize))
    }
    batches.push(encodeRows(rows))
    previousFirst = first
  }
  const share = (n: number) => percent(n / total)
  const mix =
    `${share(kinds.new)} new swaps, ${share(total - kinds.new)} re-delivered, a swap of the previous batch (of the same one in the first batch): ` +
    `${share(kinds.identical)} identical, ${share(kinds.moved)} at another time, ${share(kinds.otherWallet)} at the same time with another wallet`
  return { batches, mix, changed: kinds.moved + kinds.otherWallet }
}

/** The views fed by the swaps' entry tables, directly or down a chain, each after every view that writes its source. */
async function swapPathViews(): Promise<View[]> {
  const tables = await freshStore()
  try {
    const found = await queryRows<{ name: string; engine: string; dependencies_table: string[]; create_table_query: string }>(
      clickhouse,
      'SELECT name, engine, dependencies_table, create_table_query FROM system.tables WHERE database = {db:String}',
      { db: tables.database },
    )
    const byName = new Map(found.map((t) => [t.name, t]))
    const unqualified = (name: string) => name.slice(name.indexOf('.') + 1)
    const views: View[] = []
    const queue = swapEntryTables(tables).map(unqualified)
    for (let i = 0; i < queue.length; i++) {
      for (const name of [...(byName.get(queue[i]!)?.dependencies_table ?? [])].sort()) {
        if (views.some((v) => v.name === name)) continue
        const to = /^CREATE MATERIALIZED VIEW \S+ TO ([^\s(]+)/.exec(byName.get(name)?.create_table_query ?? '')
        if (to === null) throw new Error(`${name}: not a materialized view with a TO table`)
        views.push({ name, source: queue[i]!, target: unqualified(to[1]!) })
        if (!queue.includes(unqualified(to[1]!))) queue.push(unqualified(to[1]!))
      }
    }
    // Kahn's order, found order among the ready ones: a view once every view writing its
    // source is placed; the moves' lookup reads swap_locations, so it waits for its writer too.
    const lookups = new Map([[SWAP_MOVES_VIEW, 'swap_locations']])
    const ordered: View[] = []
    while (ordered.length < views.length) {
      const ready = views.find(
        (v) =>
          !ordered.includes(v) &&
          views.every((w) => ordered.includes(w) || (w.target !== v.source && w.target !== lookups.get(v.name))),
      )
      if (ready === undefined) throw new Error('the swaps views form a cycle')
      ordered.push(ready)
    }
    return ordered
  } finally {
    await dropStore(tables)
  }
}

/** µs per row of inserting every batch into a fresh store set up so; `check`: the re-deliveries that change a swap, to check the stored swaps against. */
async function measure(setup: Setup, batches: readonly EncodedRows[], check?: number): Promise<number> {
  const tables = await freshStore()
  try {
    let targets: readonly string[]
    if (setup.kind === 'bare') {
      targets = [`${tables.database}.swaps_bare`]
      await clickhouse.command({ query: `CREATE TABLE ${targets[0]} AS ${tables.swaps}` })
    } else {
      for (const name of setup.drop) await clickhouse.command({ query: `DROP VIEW ${tables.database}.${name}` })
      targets = swapEntryTables(tables)
    }
    await applyInsertDurability(clickhouse, tables, config.storage) // as the service's own tables
    const rows = batches.reduce((n, b) => n + b.count, 0)
    const started = performance.now()
    for (const b of batches) for (const table of targets) await insertFormatted(clickhouse, { table, columns: b.columns, texts: [b.text] })
    const ms = performance.now() - started
    if (check !== undefined) await checkStore(tables, check)
    return (ms * 1000) / rows
  } finally {
    await dropStore(tables)
  }
}

/** The full path stored the rows as production would: one live row per swap by time and by wallet, the moves written. */
async function checkStore(tables: Tables, changed: number): Promise<void> {
  const n = async (query: string) => Number((await queryRows<{ n: string }>(clickhouse, query))[0]!.n)
  const swaps = await n(`SELECT count() AS n FROM ${tables.swaps} FINAL`)
  const byWallet = await n(`SELECT count() AS n FROM ${tables.swapsByWallet} FINAL`)
  const moves = await n(`SELECT count() AS n FROM ${tables.swapMoves}`)
  const fresh = await n(`SELECT uniqExact(hash) AS n FROM ${tables.swapLocations}`)
  if (swaps !== fresh || byWallet !== fresh || (changed > 0 && moves === 0)) {
    throw new Error(`full path: ${swaps} swaps by time, ${byWallet} by wallet, ${moves} moves for ${fresh} distinct swaps`)
  }
}

async function freshStore(): Promise<Tables> {
  const tables = tablesFor(`write_costs_${tag}_${databases++}`)
  await migrate(clickhouse, tables)
  return tables
}

async function dropStore(tables: Tables): Promise<void> {
  await clickhouse.command({ query: `DROP DATABASE IF EXISTS ${tables.database} SYNC` })
}

function load(): string {
  return loadavg()[0]!.toFixed(1)
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

function percent(fraction: number): string {
  return `${(fraction * 100).toFixed(fraction < 0.1 && fraction > -0.1 ? 1 : 0)}%`
}
