import { changeRangeParams, IN_CHANGE_RANGE, type ChangeRange } from '../../shared/changes/change-feed.js'
import type { SwapTransaction } from '../../shared/records/domain.js'
import type { ClickHouseClient } from '../../shared/storage/clickhouse.js'
import { queryRows } from '../../shared/storage/query-rows.js'
import type { Tables } from '../../shared/storage/tables.js'
import type { SwapKey } from '../swaps-repository.js'
import { formatEventId, type EventId } from './event-id.js'
import { sseFrame } from '../sse/sse-writer.js'

/** One leg of a swap version stored or retracted (a row of the change feed of kind 'swap'). */
export interface SwapChange extends SwapKey {
  block: number
  wallet: string
  tokens: string[]
  deleted: boolean
}

/** What a client's filter looks at. */
export interface EventSubject {
  retraction: boolean
  wallet: string
  /** A swap's two tokens; a retraction's retracted legs (none for a wallet's same-time tombstone). */
  tokens: readonly string[]
  /** Null: unknown, or a retraction. */
  valueUsd: number | null
}

/** An event as every client gets it: serialized once. */
export interface StreamEvent {
  id: EventId
  name: 'swap' | 'retraction'
  subject: EventSubject
  /** The whole SSE frame. */
  frame: string
}

/** The swaps' changes in a range, `limit` rows at most, in block order. */
export async function readSwapChanges(clickhouse: ClickHouseClient, tables: Tables, range: ChangeRange, limit: number): Promise<SwapChange[]> {
  const rows = await queryRows<{ block: string; timestamp_ms: string; hash: string; chain_id: number; wallet_address: string; tokens: string[]; is_deleted: number }>(
    clickhouse,
    `SELECT toString(_block_number) AS block, toString(toUnixTimestamp64Milli(timestamp)) AS timestamp_ms,
       hash, chain_id, wallet_address, tokens, is_deleted
     FROM ${tables.changes} WHERE kind = 'swap' AND ${IN_CHANGE_RANGE}
     ORDER BY _block_number LIMIT {limit:UInt32}`,
    { ...changeRangeParams(range), limit },
  )
  return rows.map((r) => ({
    block: Number(r.block),
    timestampMs: Number(r.timestamp_ms),
    hash: r.hash,
    chainId: Number(r.chain_id),
    wallet: r.wallet_address,
    tokens: r.tokens,
    deleted: Number(r.is_deleted) === 1,
  }))
}

export const keyOf = (k: SwapKey): string => `${k.timestampMs}:${k.hash}:${k.chainId}`

/** A swap as the interface lists it: one per transaction hash and chain. */
const swapOf = (k: { hash: string; chainId: number }): string => `${k.chainId}:${k.hash}`

interface Candidate {
  id: EventId
  name: 'swap' | 'retraction'
  /** A retraction's key (a swap slot names only its hash and chain). */
  key: SwapKey
  wallet: string
  tokens: string[]
}

const byKey = (a: SwapKey, b: SwapKey) => a.timestampMs - b.timestampMs || bySwap(a, b)
const bySwap = (a: SwapKey, b: SwapKey) => (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0) || a.chainId - b.chainId

/**
 * The events a block's changes can give, numbered in an order fixed by the rows alone (so an
 * id means the same event whenever the block is read): first a retraction per retracted key
 * and wallet, then a swap slot per swap (hash and chain) the block touches. The legs of a
 * swap are one event.
 */
function candidatesOf(changes: readonly SwapChange[]): Candidate[] {
  const blocks = new Map<number, SwapChange[]>()
  for (const c of changes) {
    const rows = blocks.get(c.block)
    if (rows === undefined) blocks.set(c.block, [c])
    else rows.push(c)
  }
  const candidates: Candidate[] = []
  for (const [block, rows] of blocks) {
    const retracted = new Map<string, Omit<Candidate, 'id' | 'name'>>()
    const touched = new Map<string, SwapKey>()
    for (const row of rows) {
      touched.set(swapOf(row), row)
      if (!row.deleted) continue
      const id = `${keyOf(row)}:${row.wallet}`
      const known = retracted.get(id)
      if (known === undefined) retracted.set(id, { key: row, wallet: row.wallet, tokens: [...row.tokens] })
      else known.tokens.push(...row.tokens.filter((t) => !known.tokens.includes(t)))
    }
    let index = 0
    const retractions = [...retracted.values()].sort((a, b) => byKey(a.key, b.key) || (a.wallet < b.wallet ? -1 : a.wallet > b.wallet ? 1 : 0))
    for (const r of retractions) candidates.push({ id: { block, index: ++index }, name: 'retraction', ...r })
    for (const key of [...touched.values()].sort(bySwap)) candidates.push({ id: { block, index: ++index }, name: 'swap', key, wallet: '', tokens: [] })
  }
  return candidates
}

/**
 * The events of a run of whole blocks of changes, in block order. A retraction is sent as
 * the change names it. A swap stored in the run is sent with its live row (`load`: latest
 * delivery wins) once, at the last block of the run that touches it, so after the
 * retraction of the version it replaces when the run holds both; a swap no longer live is
 * not sent (its retraction follows at a later position).
 */
export async function eventsOf(changes: readonly SwapChange[], load: (keys: SwapKey[]) => Promise<SwapTransaction[]>): Promise<StreamEvent[]> {
  const candidates = candidatesOf(changes)
  const lastSlot = new Map<string, Candidate>()
  for (const c of candidates) if (c.name === 'swap') lastSlot.set(swapOf(c.key), c)
  const stored = new Map<string, SwapKey>()
  for (const c of changes) if (!c.deleted) stored.set(keyOf(c), c)
  const live = new Map<string, SwapTransaction>()
  for (const s of await load([...stored.values()])) {
    const known = live.get(swapOf({ hash: s.hash, chainId: s.chain_id }))
    if (known === undefined || known.timestamp_ms < s.timestamp_ms) live.set(swapOf({ hash: s.hash, chainId: s.chain_id }), s)
  }
  const events: StreamEvent[] = []
  for (const c of candidates) {
    const id = formatEventId(c.id)
    if (c.name === 'retraction') {
      const data = { chain_id: c.key.chainId, hash: c.key.hash, timestamp_ms: c.key.timestampMs, wallet_address: c.wallet }
      events.push({ id: c.id, name: 'retraction', subject: { retraction: true, wallet: c.wallet, tokens: c.tokens, valueUsd: null }, frame: sseFrame('retraction', JSON.stringify(data), id) })
      continue
    }
    const swap = live.get(swapOf(c.key))
    if (swap === undefined || lastSlot.get(swapOf(c.key)) !== c) continue
    const subject = { retraction: false, wallet: swap.wallet_address, tokens: [swap.token_sold.contract_address, swap.token_bought.contract_address], valueUsd: swap.value_usd }
    events.push({ id: c.id, name: 'swap', subject, frame: sseFrame('swap', JSON.stringify(swap), id) })
  }
  return events
}
