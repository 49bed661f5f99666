/**
 * `npm run bench:api`: which read-time deduplication of the swaps table is faster on
 * the embedded engine, FINAL or `LIMIT 1 BY` the key? Writes ROWS swaps (a tenth of
 * them delivered twice, in separate inserts so the duplicates sit in unmerged parts)
 * into a throw-away database, then times the API's page and count queries both ways.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createHash } from 'node:crypto'
import { loadConfig } from '../shared/config.js'
import { openRuntime } from '../shared/bootstrap.js'

const ROWS = Number(process.argv[2] ?? 300_000)
const RUNS = 7
const dataDir = mkdtempSync(join(tmpdir(), 'dedup-bench-'))
const config = loadConfig({ CLICKHOUSE_PATH: dataDir, CLICKHOUSE_DATABASE: 'dedup_bench', LOG_LEVEL: 'warn' })
const { clickhouse, tables } = await openRuntime(config, 'bench')

const hex = (label: string, len: number) => createHash('sha256').update(label).digest('hex').slice(0, len)
const wallets = Array.from({ length: 500 }, (_, i) => `0x${hex(`w${i}`, 40)}`)
const tokens = Array.from({ length: 200 }, (_, i) => `0x${hex(`t${i}`, 40)}`)
const t0 = Date.UTC(2025, 0, 1)
const row = (i: number) => ({
  chain_id: 1,
  hash: `0x${hex(`h${i}`, 64)}`,
  block_number: 21_000_000 + i,
  timestamp: t0 + i * 10_000,
  wallet_address: wallets[i % wallets.length],
  token_sold_address: tokens[i % tokens.length],
  token_sold_amount: '1000000000000000000',
  token_bought_address: tokens[(i * 7) % tokens.length],
  token_bought_amount: '2500000',
  value_usd: 100 + (i % 1000),
  dex: 'uniswap-v3',
  ingested_at: Date.now(),
})

for (let start = 0; start < ROWS; start += 50_000) {
  const values = Array.from({ length: Math.min(50_000, ROWS - start) }, (_, k) => row(start + k))
  await clickhouse.insert({ table: tables.swaps, values, format: 'JSONEachRow' })
}
for (let start = 0; start < ROWS; start += 100_000) {
  const values = Array.from({ length: Math.min(10_000, ROWS - start) }, (_, k) => ({ ...row(start + k), ingested_at: Date.now() + 1 }))
  await clickhouse.insert({ table: tables.swaps, values, format: 'JSONEachRow' })
}

const where = `timestamp >= fromUnixTimestamp64Milli({start:Int64}, 'UTC') AND timestamp <= fromUnixTimestamp64Milli({end:Int64}, 'UTC')`
const walletWhere = `${where} AND wallet_address = {wallet:String}`
const tokenWhere = `${where} AND (token_sold_address IN {tokens:Array(String)} OR token_bought_address IN {tokens:Array(String)})`
const latest = (w: string) =>
  `(SELECT * FROM ${tables.swaps} WHERE ${w} ORDER BY chain_id, hash, ingested_at DESC LIMIT 1 BY chain_id, hash)`
const queries: Record<string, Record<string, string>> = {
  FINAL: {
    page: `SELECT * FROM ${tables.swaps} FINAL WHERE ${where} ORDER BY timestamp DESC, hash, chain_id LIMIT 50 OFFSET 1000`,
    count: `SELECT count() FROM ${tables.swaps} FINAL WHERE ${where}`,
    'wallet page': `SELECT * FROM ${tables.swaps} FINAL WHERE ${walletWhere} ORDER BY timestamp DESC, hash, chain_id LIMIT 50`,
    'wallet count': `SELECT count() FROM ${tables.swaps} FINAL WHERE ${walletWhere}`,
    'token page': `SELECT * FROM ${tables.swaps} FINAL WHERE ${tokenWhere} ORDER BY timestamp DESC, hash, chain_id LIMIT 50`,
    'token count': `SELECT count() FROM ${tables.swaps} FINAL WHERE ${tokenWhere}`,
    'by hash': `SELECT * FROM ${tables.swaps} FINAL WHERE hash = {hash:String} ORDER BY chain_id LIMIT 1`,
  },
  'LIMIT 1 BY': {
    page: `SELECT * FROM ${latest(where)} ORDER BY timestamp DESC, hash, chain_id LIMIT 50 OFFSET 1000`,
    count: `SELECT count() FROM ${latest(where)}`,
    'wallet page': `SELECT * FROM ${latest(walletWhere)} ORDER BY timestamp DESC, hash, chain_id LIMIT 50`,
    'wallet count': `SELECT count() FROM ${latest(walletWhere)}`,
    'token page': `SELECT * FROM ${latest(tokenWhere)} ORDER BY timestamp DESC, hash, chain_id LIMIT 50`,
    'token count': `SELECT count() FROM ${latest(tokenWhere)}`,
    'by hash': `SELECT * FROM ${latest('hash = {hash:String}')} ORDER BY chain_id LIMIT 1`,
  },
}
const query_params = { start: t0, end: t0 + ROWS * 10_000, wallet: wallets[3], tokens: [tokens[5]], hash: `0x${hex('h12345', 64)}` }

async function median(query: string): Promise<{ ms: number; result: string }> {
  const times: number[] = []
  let result = ''
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now()
    const rs = await clickhouse.query({ query, query_params, format: 'JSONEachRow' })
    const rows = await rs.json<Record<string, unknown>>()
    times.push(performance.now() - started)
    result = rows.length === 1 && 'count()' in rows[0]! ? String(rows[0]!['count()']) : `${rows.length} rows`
  }
  times.sort((a, b) => a - b)
  return { ms: times[Math.floor(RUNS / 2)]!, result }
}

console.log(`swaps table: ${ROWS} swaps + ${Math.ceil(ROWS / 100_000) * 10_000} re-deliveries, median of ${RUNS} runs`)
for (const name of Object.keys(queries.FINAL!)) {
  const f = await median(queries.FINAL![name]!)
  const l = await median(queries['LIMIT 1 BY']![name]!)
  console.log(
    `${name.padEnd(13)} FINAL ${f.ms.toFixed(1).padStart(7)} ms  LIMIT 1 BY ${l.ms.toFixed(1).padStart(7)} ms  ` +
      `(${(l.ms / f.ms).toFixed(2)}x)  results: ${f.result} / ${l.result}`,
  )
}
await clickhouse.command({ query: `DROP DATABASE ${tables.database}` })
await clickhouse.close()
rmSync(dataDir, { recursive: true, force: true })
