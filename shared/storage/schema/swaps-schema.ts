import type { Tables } from '../tables.js'

/**
 * The swaps storage, declared once: every table's columns, keys and the materialized
 * views that keep them in step. DDL, the insert column list and the select lists all
 * come from here.
 *
 * Producer rows are inserted twice, the same rows, in this order (swapEntryTables):
 *   1. INSERT ▶ swap_versions_incoming (Null)
 *        └─ mv_swap_versions ──▶ swap_locations  (every variant ever delivered, by hash)
 *   2. INSERT ▶ swaps_incoming (Null)
 *        ├─ mv_swap_rows ──────▶ swaps_by_time   (the swaps; one winner per hash and insert)
 *        └─ mv_swap_moves ─────▶ swap_moves      (every other version or variant of these hashes)
 *                ├─ mv_move_tombstones ─▶ swaps_by_time (is_deleted = 1 at the old time)
 *                └─ mv_same_time_{wallet,leg}_tombstones ─▶ swap_rows_by_wallet, swap_legs_by_token
 *                       (a variant at the kept time: its other wallet's row, its other tokens' legs)
 *   swaps_by_time (rows and tombstones alike)
 *        └─ mv_swap_rows_by_wallet ▶ swap_rows_by_wallet (whole rows by wallet, then time)
 *               └─ mv_swap_legs ──────▶ swap_legs_by_token  (by either leg's token, then time)
 *                      └─ mv_changes_swaps ─▶ changes (the change feed, schema/changes-schema.ts)
 *
 * Every row table is a ReplacingMergeTree(ingested_at, is_deleted) keyed by what
 * identifies its row, so re-delivery collapses and a tombstone retracts; reads use FINAL,
 * which is exact whether or not ClickHouse has merged. A swap re-delivered at another time
 * (a reorg, a corrected producer) has its other versions retracted in every table inside
 * the insert itself: the latest delivery wins. Re-delivered at the same time with another
 * wallet or other tokens, it replaces its row in swaps_by_time (the newest delivery of a
 * key wins there), and the rows of the replaced variant that the wallet and token paths
 * key differently are retracted in the same insert.
 *
 * Why two inserts: ClickHouse commits each view's part on its own, so a process killed
 * in the middle of an insert can leave it half applied (the row live in swaps_by_time,
 * the views after it missing). Step 1 is acknowledged before step 2 starts, so every
 * version that can be live has its location stored, and the retraction lookup retracts
 * every other version it lists, live or not (a tombstone of a version that never got
 * stored is harmless). A half-applied insert is then repaired by its job's re-delivery,
 * and a different version delivered before that repair still retracts it
 * (test/swaps-half-applied.test.ts).
 */

interface Column {
  name: string
  type: string
}

const DT = "DateTime64(3, 'UTC')"

/** The columns a producer's row carries, in insert order (see ingest/pipeline/swap-lines.ts). */
export const SWAP_COLUMNS = [
  { name: 'chain_id', type: 'UInt32' },
  { name: 'hash', type: 'String' },
  { name: 'block_number', type: 'UInt64' },
  { name: 'timestamp', type: DT },
  { name: 'wallet_address', type: 'String' },
  { name: 'token_sold_address', type: 'String' },
  { name: 'token_sold_amount', type: 'UInt256' },
  { name: 'token_bought_address', type: 'String' },
  { name: 'token_bought_amount', type: 'UInt256' },
  { name: 'value_usd', type: 'Nullable(Float64)' },
  { name: 'dex', type: 'Nullable(String)' },
  { name: 'ingested_at', type: DT },
] as const satisfies readonly Column[]

export type SwapColumn = (typeof SWAP_COLUMNS)[number]['name']
export const SWAP_INSERT_COLUMNS: readonly SwapColumn[] = SWAP_COLUMNS.map((c) => c.name)

/**
 * How a stored swap is read back as JSON that loses nothing: 64-bit and wider integers
 * as strings, times as integer milliseconds (`timestamp_ms`); `ingested_at` stays inside.
 */
export const SWAP_READ_LIST = SWAP_COLUMNS.filter((c) => c.name !== 'ingested_at')
  .map((c) =>
    c.type === DT
      ? `toString(toUnixTimestamp64Milli(${c.name})) AS ${c.name}_ms`
      : c.type === 'UInt64' || c.type === 'UInt256'
        ? `toString(${c.name}) AS ${c.name}`
        : c.name,
  )
  .join(', ')

/** A swap as SWAP_READ_LIST reads it (the client may give UInt32 and Float64 columns as numbers or strings). */
export interface SwapReadRow {
  chain_id: number
  hash: string
  block_number: string
  timestamp_ms: string
  wallet_address: string
  token_sold_address: string
  token_sold_amount: string
  token_bought_address: string
  token_bought_amount: string
  value_usd: number | null
  dex: string | null
}

const IS_DELETED: Column = { name: 'is_deleted', type: 'UInt8 DEFAULT 0' }
/** The identity of a stored swap version: its time, then its transaction. */
export const SWAP_KEY = ['timestamp', 'hash', 'chain_id'] as const

/**
 * Where a swap version is, and what a tombstone of it must name in every access path.
 * `is_deleted` takes its default (0) as locations are written; the lookup reads every row
 * of a hash whatever it holds.
 */
const LOCATION_COLUMNS: Column[] = [
  ...(['hash', 'chain_id', 'timestamp', 'wallet_address', 'token_sold_address', 'token_bought_address', 'ingested_at'] as const).map(
    (name) => SWAP_COLUMNS.find((c) => c.name === name)!,
  ),
  IS_DELETED,
]

/** The columns a version's location is written with (is_deleted takes its default). */
export const SWAP_LOCATION_INSERT_COLUMNS = names(LOCATION_COLUMNS.filter((c) => c !== IS_DELETED))

function columnsDdl(columns: readonly Column[]): string {
  return columns.map((c) => `${c.name} ${c.type}`).join(',\n      ')
}

function names(columns: readonly Column[]): string {
  return columns.map((c) => c.name).join(', ')
}

const REPLACING = 'ReplacingMergeTree(ingested_at, is_deleted)'

/**
 * What tells two variants of one version apart (same time, hash and chain; another wallet
 * or other tokens), and breaks ties between deliveries stamped alike: the greater wins.
 */
const VARIANT_COLUMNS = ['wallet_address', 'token_sold_address', 'token_bought_address'] as const

/** The newest version of each swap in one insert block: latest delivery, then latest time, then the greater variant. */
function winnersOf(source: string): string {
  return `SELECT * FROM ${source} ORDER BY ingested_at DESC, timestamp DESC, ${VARIANT_COLUMNS.map((c) => `${c} DESC`).join(', ')} LIMIT 1 BY hash, chain_id`
}

export const SWAP_ROWS_VIEW = 'mv_swap_rows'

/** The feed of swaps_by_time: each insert block's winners. */
export function swapRowsViewDdl(t: Tables): string {
  return `CREATE MATERIALIZED VIEW IF NOT EXISTS ${t.database}.${SWAP_ROWS_VIEW} TO ${t.swaps} AS
      SELECT ${names(SWAP_COLUMNS)}, toUInt8(0) AS is_deleted FROM (${winnersOf(t.swapsIncoming)})`
}

/**
 * The wallet access path: whole rows, as swaps_by_time holds them, ordered by wallet, then
 * as the swaps are, so a wallet's page (with any token filter on top) is one contiguous
 * read, its total a count of its rows (a wallet has few swaps next to a token).
 */
export function walletRowsDdl(t: Tables): string {
  return `CREATE TABLE IF NOT EXISTS ${t.swapsByWallet} (
      ${columnsDdl([...SWAP_COLUMNS, IS_DELETED])}
    ) ENGINE = ${REPLACING}
    ORDER BY (wallet_address, ${SWAP_KEY.join(', ')})
    SETTINGS index_granularity = 1024`
}

export const WALLET_ROWS_VIEW = 'mv_swap_rows_by_wallet'

export function walletRowsViewDdl(t: Tables): string {
  return `CREATE MATERIALIZED VIEW IF NOT EXISTS ${t.database}.${WALLET_ROWS_VIEW} TO ${t.swapsByWallet} AS
      SELECT ${names(SWAP_COLUMNS)}, is_deleted FROM ${t.swaps}`
}

export const TOKEN_LEGS_GRANULARITY = 1024
export const TOKEN_LEGS_VIEW = 'mv_swap_legs'

/**
 * The token path: one row per leg's token and swap version, with its swap's wallet, so a
 * token's page of the served wallets (SERVED_WALLETS=tracked) picks its keys here instead of
 * reading every swap of the token's hours. Granules of 1,024 rows, not 8,192: a token's page
 * reads a few rows of each of its hours (a FINAL read of one token: ~15 ms against ~30 on 10M swaps).
 */
function tokenLegsDdl(t: Tables): string {
  return `CREATE TABLE IF NOT EXISTS ${t.swapLegs} (
      token_address String,
      timestamp ${DT},
      hash String,
      chain_id UInt32,
      ingested_at ${DT},
      is_deleted UInt8 DEFAULT 0,
      wallet_address String DEFAULT ''
    ) ENGINE = ${REPLACING}
    ORDER BY (token_address, ${SWAP_KEY.join(', ')})
    SETTINGS index_granularity = ${TOKEN_LEGS_GRANULARITY}`
}

/**
 * The legs are read from the wallet path, not beside it from swaps_by_time, so the three
 * paths commit in a chain (by time, by wallet, by token) and the change feed, read from the
 * legs, names a row only once every path holds it. The wallet path's same-time tombstones
 * carry no tokens and make no leg.
 */
export function tokenLegsViewDdl(t: Tables): string {
  return `CREATE MATERIALIZED VIEW IF NOT EXISTS ${t.database}.${TOKEN_LEGS_VIEW} TO ${t.swapLegs} AS
      SELECT token_address, ${SWAP_KEY.join(', ')}, ingested_at, is_deleted, wallet_address FROM ${t.swapsByWallet}
      ARRAY JOIN arrayFilter(x -> x != '', arrayDistinct([token_sold_address, token_bought_address])) AS token_address`
}

/**
 * The tables producer rows are inserted into, the same rows into each, one insert after
 * the other in this order (see the top of this file).
 */
export function swapEntryTables(t: Tables): readonly [string, string] {
  return [t.swapVersionsIncoming, t.swapsIncoming]
}

/** The entry table of step 1 and the view that records every delivered version's location. */
export function swapVersionsDdl(t: Tables): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${t.swapVersionsIncoming} (
      ${columnsDdl(SWAP_COLUMNS)}
    ) ENGINE = Null`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${t.database}.mv_swap_versions TO ${t.swapLocations} AS
      SELECT ${SWAP_LOCATION_INSERT_COLUMNS} FROM ${t.swapVersionsIncoming}`,
  ]
}

/**
 * The hashes of the inserted block with more than one stored location: step 1 stored this
 * delivery's, so a hash with one has nothing else to retract (an identical earlier
 * delivery shares its key). Most swaps are new; the lookup below then groups and joins
 * only the few that are not (a fifth of the direct insert's time, by bench:write-costs).
 */
const HASHES_DELIVERED_BEFORE = (t: Tables) =>
  `SELECT hash FROM ${t.swapLocations} WHERE hash IN (SELECT hash FROM ${t.swapsIncoming}) GROUP BY hash HAVING count() > 1`

export const SWAP_MOVES_VIEW = 'mv_swap_moves'

/** 1: a variant at the kept version's time, retracted from the wallet and token paths only (swapMovesViewDdl). */
export const SWAP_MOVES_SAME_TIME = 'same_time UInt8 DEFAULT 0'

/**
 * The retraction lookup: for each hash of the insert, every stored variant of every
 * version, whether it is live or not (swap_locations lists every version delivered, each
 * variant in a row of its own, and a version whose step 2 never completed may be live in
 * some table). The subqueries on swaps_incoming read the inserted block only (it is the
 * view's source), so the lookup touches the granules of these hashes in swap_locations; no
 * FINAL: every delivery of a variant is looked at (a variant delivered twice gives two
 * tombstones, which collapse; the newer one outranks every delivery of it). Only the hashes
 * delivered before are grouped and joined (HASHES_DELIVERED_BEFORE).
 *
 * - A version at another time than the insert's winner is retracted (same_time = 0): its
 *   tombstone, whose version is the new delivery's or just above that variant's newest
 *   delivery, goes through swaps_by_time to every access path.
 * - At the winner's time, the key of swaps_by_time is shared, and the row there is the
 *   newest delivery of that time (the kept variant). Every other variant there is
 *   retracted from the paths keyed by what it does not share with the kept one
 *   (same_time = 1): its wallet's row when the wallet differs, its tokens' legs when the
 *   kept variant has neither leg on that token ('' where nothing is to retract). The
 *   insert's own winner may be that variant, when a newer delivery of the time is stored.
 */
export function swapMovesViewDdl(t: Tables): string {
  const variant = `(${VARIANT_COLUMNS.join(', ')})`
  const keptTokens = '[l.kept.2, l.kept.3]'
  const differs = `(l.variant.1 != l.kept.1 OR NOT has(${keptTokens}, l.variant.2) OR NOT has(${keptTokens}, l.variant.3))`
  const sameTime = 'l.timestamp = w.timestamp'
  return `CREATE MATERIALIZED VIEW IF NOT EXISTS ${t.database}.${SWAP_MOVES_VIEW} TO ${t.swapMoves} AS
      SELECT l.hash AS hash, l.chain_id AS chain_id, l.timestamp AS timestamp,
             if(${sameTime} AND l.variant.1 = l.kept.1, '', l.variant.1) AS wallet_address,
             if(${sameTime} AND has(${keptTokens}, l.variant.2), '', l.variant.2) AS token_sold_address,
             if(${sameTime} AND has(${keptTokens}, l.variant.3), '', l.variant.3) AS token_bought_address,
             greatest(if(${sameTime}, l.kept_at, w.ingested_at), l.variant.4 + toIntervalMillisecond(1)) AS superseded_at,
             toUInt8(${sameTime}) AS same_time
      FROM (${winnersOf(t.swapsIncoming)}) AS w
      INNER JOIN (
        SELECT hash, chain_id, timestamp, variant, kept, kept_at
        FROM (
          SELECT hash, chain_id, timestamp,
                 groupArray((${VARIANT_COLUMNS.join(', ')}, ingested_at)) AS variants,
                 argMax(${variant}, (ingested_at, ${VARIANT_COLUMNS.join(', ')})) AS kept,
                 max(ingested_at) AS kept_at
          FROM ${t.swapLocations}
          WHERE hash IN (${HASHES_DELIVERED_BEFORE(t)})
          GROUP BY hash, chain_id, timestamp
        )
        ARRAY JOIN variants AS variant
      ) AS l ON l.hash = w.hash AND l.chain_id = w.chain_id
      WHERE l.timestamp != w.timestamp OR ${differs}`
}

export const MOVE_TOMBSTONES_VIEW = 'mv_move_tombstones'

/** A version at another time (or retracted by a producer): its tombstone into swaps_by_time, whose views carry it to every path. */
export function moveTombstonesViewDdl(t: Tables): string {
  return `CREATE MATERIALIZED VIEW IF NOT EXISTS ${t.database}.${MOVE_TOMBSTONES_VIEW} TO ${t.swaps} AS
      SELECT chain_id, hash, timestamp, wallet_address, token_sold_address, token_bought_address,
             superseded_at AS ingested_at, toUInt8(1) AS is_deleted
      FROM ${t.swapMoves}
      WHERE same_time = 0`
}

export const SAME_TIME_WALLET_TOMBSTONES_VIEW = 'mv_same_time_wallet_tombstones'
export const SAME_TIME_LEG_TOMBSTONES_VIEW = 'mv_same_time_leg_tombstones'

/** A variant at the kept version's time: tombstones of its wallet's row and its tokens' legs, straight into those paths (swaps_by_time keeps its row). */
export function sameTimeTombstonesViewDdl(t: Tables): string[] {
  return [
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${t.database}.${SAME_TIME_WALLET_TOMBSTONES_VIEW} TO ${t.swapsByWallet} AS
      SELECT chain_id, hash, timestamp, wallet_address, superseded_at AS ingested_at, toUInt8(1) AS is_deleted
      FROM ${t.swapMoves}
      WHERE same_time = 1 AND wallet_address != ''`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${t.database}.${SAME_TIME_LEG_TOMBSTONES_VIEW} TO ${t.swapLegs} AS
      SELECT token_address, ${SWAP_KEY.join(', ')}, superseded_at AS ingested_at, toUInt8(1) AS is_deleted
      FROM ${t.swapMoves}
      ARRAY JOIN arrayFilter(x -> x != '', arrayDistinct([token_sold_address, token_bought_address])) AS token_address
      WHERE same_time = 1`,
  ]
}

/**
 * swap_locations: every delivered variant of every version, by hash. The variant is in the
 * key, so merges keep each one: the lookup above needs the variants a re-delivery at the
 * same time replaces.
 */
function swapLocationsDdl(t: Tables): string {
  return `CREATE TABLE IF NOT EXISTS ${t.swapLocations} (
      ${columnsDdl(LOCATION_COLUMNS)}
    ) ENGINE = ${REPLACING}
    ORDER BY (hash, chain_id, timestamp, ${VARIANT_COLUMNS.join(', ')})
    SETTINGS index_granularity = 1024`
}

/** DDL of the swaps storage, in creation order (targets before the views that feed them). */
export function swapsSchemaDdl(t: Tables): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${t.swaps} (
      ${columnsDdl([...SWAP_COLUMNS, IS_DELETED])}
    ) ENGINE = ${REPLACING}
    PARTITION BY toYYYYMM(timestamp)
    ORDER BY (${SWAP_KEY.join(', ')})
    SETTINGS index_granularity = 1024`,

    `CREATE TABLE IF NOT EXISTS ${t.swapsIncoming} (
      ${columnsDdl(SWAP_COLUMNS)}
    ) ENGINE = Null`,

    swapLocationsDdl(t),

    ...swapVersionsDdl(t),

    walletRowsDdl(t),
    tokenLegsDdl(t),

    // A log of retracted versions: small (moves are rare), read by the views below and by
    // the API to learn which hours a retraction changed (api/swap-hour-counts.ts).
    `CREATE TABLE IF NOT EXISTS ${t.swapMoves} (
      hash String,
      chain_id UInt32,
      timestamp ${DT},
      wallet_address String,
      token_sold_address String,
      token_bought_address String,
      superseded_at ${DT},
      moved_at ${DT} DEFAULT now64(3),
      ${SWAP_MOVES_SAME_TIME}
    ) ENGINE = MergeTree
    ORDER BY moved_at`,

    swapRowsViewDdl(t),

    swapMovesViewDdl(t),

    moveTombstonesViewDdl(t),

    walletRowsViewDdl(t),

    tokenLegsViewDdl(t),

    ...sameTimeTombstonesViewDdl(t),
  ]
}
