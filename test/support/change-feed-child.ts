import { appendFileSync } from 'node:fs'
import { openRuntime } from '../../shared/bootstrap.js'
import { changeRangeParams, changesSince, IN_CHANGE_RANGE, recordedPosition, recordPosition } from '../../shared/changes/change-feed.js'
import { loadConfig } from '../../shared/platform/config.js'
import type { Runtime } from '../../shared/runtime.js'
import { queryRows } from '../../shared/storage/query-rows.js'
import { swapEntryTables } from '../../shared/storage/schema/swaps-schema.js'
import { batchHashes } from './change-feed-batches.js'
import { addressFor, swapRowValues } from './factories.js'

/**
 * A writer and a consumer of the change feed in one process, for the SIGKILL test
 * (test/change-feed-sigkill.test.ts), which owns the store's data directory only while no
 * child runs.
 *
 *   write <batch>    stores batch after batch from <batch>, each in many insert blocks,
 *                    printing `storing <n>` before and `acked <n> in <ms> ms` once batch n is
 *                    stored, consuming the feed after each
 *   recover <batch>  re-delivers batch <batch> (the one not acknowledged when the writer died),
 *                    consumes the feed, prints `recovered <rows stored without their change before>`
 *
 * The consumer appends every swap hash it reads to SEEN_FILE, then records its position.
 */
const CONSUMER = 'sigkill-test'

async function storeBatch(rt: Runtime, batch: number): Promise<void> {
  const values = swapRowValues(
    batchHashes(batch).map((hash, i) => ({
      hash,
      timestamp: Date.UTC(2026, 0, 1) + batch * 3_600_000 + i * 1_000,
      wallet_address: addressFor(`sigkill-wallet-${i % 40}`),
      token_sold_address: addressFor(`sigkill-token-${i % 7}`),
      token_bought_address: addressFor('sigkill-quote'),
    })),
  )
  // Many small blocks: each view commits a part per block, so a kill lands between them.
  const settings = { max_insert_block_size: '100', min_insert_block_size_rows: '0', min_insert_block_size_bytes: '0' }
  for (const table of swapEntryTables(rt.tables)) await rt.clickhouse.insert({ table, values, format: 'JSONEachRow', clickhouse_settings: settings })
}

async function consume(rt: Runtime, seenFile: string): Promise<void> {
  const range = await changesSince(rt.clickhouse, rt.tables, (await recordedPosition(rt.clickhouse, rt.tables, CONSUMER)) ?? 0)
  const rows = await queryRows<{ hash: string }>(
    rt.clickhouse,
    `SELECT DISTINCT hash FROM ${rt.tables.changes} WHERE ${IN_CHANGE_RANGE} AND kind = 'swap'`,
    changeRangeParams(range),
  )
  if (rows.length > 0) appendFileSync(seenFile, rows.map((r) => `${r.hash}\n`).join(''))
  await recordPosition(rt.clickhouse, rt.tables, CONSUMER, range.to)
}

async function rowsWithoutChange(rt: Runtime): Promise<number> {
  const [row] = await queryRows<{ n: string }>(
    rt.clickhouse,
    `SELECT count() AS n FROM ${rt.tables.swaps} WHERE hash NOT IN (SELECT hash FROM ${rt.tables.changes} WHERE kind = 'swap')`,
  )
  return Number(row?.n ?? 0)
}

const [mode, from] = process.argv.slice(2)
const seenFile = process.env.SEEN_FILE!
const rt = await openRuntime(loadConfig(process.env), 'test')
if (mode === 'write') {
  for (let batch = Number(from); ; batch++) {
    process.stdout.write(`storing ${batch}\n`)
    const started = Date.now()
    await storeBatch(rt, batch)
    process.stdout.write(`acked ${batch} in ${Date.now() - started} ms\n`)
    await consume(rt, seenFile)
  }
} else {
  const without = await rowsWithoutChange(rt)
  await storeBatch(rt, Number(from))
  await consume(rt, seenFile)
  process.stdout.write(`recovered ${without}\n`)
  await rt.clickhouse.close()
  process.exit(0)
}
