import type { ClickHouseClient } from '../../shared/storage/clickhouse.js'
import type { Tables } from '../../shared/storage/tables.js'
import type { BadRecordsSet } from './bad-records.js'

/** Direct ClickHouse checks, run once the service has stopped (the store is embedded). */

async function rows<T>(clickhouse: ClickHouseClient, query: string, params: Record<string, unknown> = {}): Promise<T[]> {
  const rs = await clickhouse.query({ query, query_params: params, format: 'JSONEachRow' })
  return rs.json<T>()
}

export interface SwapStoreFigures {
  rows: number
  distinct: number
  byWallet: number
  /** Live swaps whose version swap_locations does not list (the retraction lookup could not find them). */
  unlocated: number
  legs: number
  missing: number
  unexpected: number
  missingSample: string[]
}

/** The time-ordered swaps in [startMs, endMs], each access path, and the full hash set compared. */
export async function checkSwapStore(
  clickhouse: ClickHouseClient,
  tables: Tables,
  range: { startMs: number; endMs: number },
  expected: readonly string[],
): Promise<SwapStoreFigures> {
  const params = { start: range.startMs, end: range.endMs }
  const inRange = `timestamp BETWEEN fromUnixTimestamp64Milli({start:Int64}, 'UTC') AND fromUnixTimestamp64Milli({end:Int64}, 'UTC')`
  const [main] = await rows<{ n: string; d: string }>(
    clickhouse,
    `SELECT count() AS n, uniqExact(hash) AS d FROM ${tables.swaps} FINAL WHERE ${inRange}`,
    params,
  )
  const [wallet] = await rows<{ n: string }>(clickhouse, `SELECT count() AS n FROM ${tables.swapsByWallet} FINAL WHERE ${inRange}`, params)
  const [legs] = await rows<{ n: string }>(clickhouse, `SELECT count() AS n FROM ${tables.swapLegs} FINAL WHERE ${inRange}`, params)
  const [unlocated] = await rows<{ n: string }>(
    clickhouse,
    `SELECT count() AS n FROM ${tables.swaps} FINAL WHERE ${inRange}
       AND (hash, chain_id, timestamp) NOT IN (SELECT hash, chain_id, timestamp FROM ${tables.swapLocations})`,
    params,
  )
  const rs = await clickhouse.query({
    query: `SELECT hash FROM ${tables.swaps} FINAL WHERE ${inRange}`,
    query_params: params,
    format: 'TabSeparated',
  })
  const stored = new Set((await rs.text()).split('\n').filter((h) => h !== ''))
  const expectedSet = new Set(expected)
  const missing = expected.filter((h) => !stored.has(h))
  let unexpected = 0
  for (const h of stored) if (!expectedSet.has(h)) unexpected++
  return {
    rows: Number(main!.n),
    distinct: Number(main!.d),
    byWallet: Number(wallet!.n),
    unlocated: Number(unlocated!.n),
    legs: Number(legs!.n),
    missing: missing.length,
    unexpected,
    missingSample: missing.slice(0, 5),
  }
}

export interface BadRecordFigures {
  /** Per file: bad records expected, dead letters found (with a reason), by kind. */
  files: Array<{ path: string; expected: number; found: number; withoutReason: number; byKind: Map<string, number>; expectedByKind: Map<string, number> }>
  validExpected: number
  validStored: number
  tokensWithWrongId: number
}

export async function checkBadRecords(clickhouse: ClickHouseClient, tables: Tables, set: BadRecordsSet): Promise<BadRecordFigures> {
  const files: BadRecordFigures['files'] = []
  for (const file of set.files) {
    const found = await rows<{ kind: string; n: string; no_reason: string }>(
      clickhouse,
      `SELECT extract(payload, 'bad:([a-z0-9-]+):[0-9]+') AS kind, count() AS n, countIf(reason = '') AS no_reason
       FROM ${tables.deadLetters} FINAL WHERE source = {source:String} GROUP BY kind ORDER BY kind`,
      // A backfill's dead letters name their file as source (and their line apart).
      { source: file.path },
    )
    const byKind = new Map(found.map((r) => [r.kind === '' ? '(no marker: a valid record?)' : r.kind, Number(r.n)]))
    files.push({
      path: file.path,
      expected: file.badTotal,
      found: found.reduce((s, r) => s + Number(r.n), 0),
      withoutReason: found.reduce((s, r) => s + Number(r.no_reason), 0),
      byKind,
      expectedByKind: file.bad,
    })
  }
  const [swaps] = await rows<{ n: string }>(
    clickhouse,
    `SELECT count() AS n FROM ${tables.swaps} FINAL WHERE hash IN {hashes:Array(String)}`,
    { hashes: set.validSwapHashes },
  )
  const tokenRows = await rows<{ contract_address: string; id: string }>(
    clickhouse,
    `SELECT contract_address, id FROM ${tables.tokens} FINAL WHERE contract_address IN {addresses:Array(String)}`,
    { addresses: [...set.validTokens.keys()] },
  )
  const tokensWithWrongId = tokenRows.filter((t) => set.validTokens.get(t.contract_address) !== t.id).length
  const [holdings] = await rows<{ n: string }>(
    clickhouse,
    `SELECT count() AS n FROM ${tables.holdings} FINAL WHERE concat(wallet_address, '-', contract_address) IN {ids:Array(String)}`,
    { ids: set.validHoldings.map((h) => `${h.wallet}-${h.token}`) },
  )
  const [prices] = await rows<{ n: string }>(
    clickhouse,
    `SELECT count() AS n FROM ${tables.prices} FINAL
     WHERE concat(contract_address, '@', toString(toUnixTimestamp64Milli(timestamp))) IN {ids:Array(String)}`,
    { ids: set.validPrices.map((p) => `${p.token}@${p.timestamp}`) },
  )
  const validExpected = set.validSwapHashes.length + set.validTokens.size + set.validHoldings.length + set.validPrices.length
  return {
    files,
    validExpected,
    validStored: Number(swaps!.n) + tokenRows.length + Number(holdings!.n) + Number(prices!.n),
    tokensWithWrongId,
  }
}
