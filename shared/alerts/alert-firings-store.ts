import { blockPosition } from '../changes/change-feed.js'
import { dateTime64Param } from '../platform/datetime-param.js'
import type { ClickHouseClient } from '../storage/clickhouse.js'
import { listSet } from '../storage/list-param.js'
import { queryRows } from '../storage/query-rows.js'
import type { Tables } from '../storage/tables.js'
import type { AlertFiring } from './alert-firing.js'
import type { AlertKind } from './alert-rule.js'

export interface FiringFilter {
  ruleId?: string
  token?: string
  /** fired_at bounds in ms: since inclusive, until exclusive. */
  since?: number
  until?: number
}

/**
 * A firing version's place in the order versions were written: the block number of the
 * insert that wrote it, then its firing id (one insert writes a firing once). An id of ''
 * stands before the block's first version.
 */
export interface FiringPlace {
  block: number
  id: string
}

interface FiringRow {
  id: string
  rule_id: string
  kind: string
  token: string
  wallet_address: string
  window_start_ms: string
  window_end_ms: string
  value: number
  swap_keys: string[]
  evidence: string
  status: string
  sequence: string
  fired_ms: string
  retracted_ms: string | null
}

const READ_LIST = `id, rule_id, kind, token, wallet_address,
  toString(toUnixTimestamp64Milli(window_start)) AS window_start_ms, toString(toUnixTimestamp64Milli(window_end)) AS window_end_ms,
  value, swap_keys, evidence, status, toString(sequence) AS sequence,
  toString(toUnixTimestamp64Milli(fired_at)) AS fired_ms,
  if(retracted_at IS NULL, NULL, toString(toUnixTimestamp64Milli(assumeNotNull(retracted_at)))) AS retracted_ms`

/** The alert firings in ClickHouse (alert_firings, ReplacingMergeTree by id): a retraction is a newer version of its firing. */
export class AlertFiringsStore {
  constructor(
    private readonly clickhouse: ClickHouseClient,
    private readonly tables: Tables,
  ) {}

  async write(firings: readonly AlertFiring[], at: number): Promise<void> {
    if (firings.length === 0) return
    await this.clickhouse.insert({
      table: this.tables.alertFirings,
      format: 'JSONEachRow',
      values: firings.map((f) => ({
        id: f.id,
        rule_id: f.rule_id,
        kind: f.kind,
        token: f.token,
        wallet_address: f.wallet_address,
        window_start: dateTime64Param(f.window_start),
        window_end: dateTime64Param(f.window_end),
        value: f.value,
        swap_keys: f.swap_keys,
        evidence: JSON.stringify(f.swaps),
        status: f.status,
        sequence: f.sequence,
        fired_at: dateTime64Param(f.fired_at),
        retracted_at: f.retracted_at === null ? null : dateTime64Param(f.retracted_at),
        updated_at: dateTime64Param(at),
      })),
    })
  }

  /** Which of these ids are stored already (fired or retracted). */
  async existing(ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set()
    const rows = await queryRows<{ id: string }>(
      this.clickhouse,
      `SELECT id FROM ${this.tables.alertFirings} FINAL WHERE id IN ${listSet('ids')}`,
      { ids: [...new Set(ids)] },
    )
    return new Set(rows.map((r) => r.id))
  }

  /** The standing firings whose evidence names any of these swap keys. */
  async dependingOn(keys: readonly string[]): Promise<AlertFiring[]> {
    if (keys.length === 0) return []
    const rows = await queryRows<FiringRow>(
      this.clickhouse,
      `SELECT ${READ_LIST} FROM ${this.tables.alertFirings} FINAL
       WHERE status = 'fired'
         AND id IN (SELECT id FROM ${this.tables.alertFirings} ARRAY JOIN swap_keys AS key WHERE key IN ${listSet('keys')})
       ORDER BY sequence`,
      { keys: [...new Set(keys)] },
    )
    return rows.map(fromRow)
  }

  /** The highest block number of the firings' parts: every version written at or below it is visible, and none can be written there later. */
  position(): Promise<number> {
    return blockPosition(this.clickhouse, this.tables, this.tables.alertFirings)
  }

  /**
   * The firing versions (a firing, then its retraction) written after the place `after` up to
   * `upTo`, both places, `limit` at most, in the order written. Versions a merge replaced
   * by a newer one are gone: a firing retracted since comes as its retraction alone.
   */
  async writtenBetween(after: FiringPlace, upTo: FiringPlace, limit: number): Promise<Array<{ place: FiringPlace; firing: AlertFiring }>> {
    const rows = await queryRows<FiringRow & { block: string }>(
      this.clickhouse,
      `SELECT toString(_block_number) AS block, ${READ_LIST} FROM ${this.tables.alertFirings}
       WHERE _block_number BETWEEN {after_block:UInt64} AND {up_block:UInt64}
         AND (_block_number, id) > ({after_block:UInt64}, {after_id:String}) AND (_block_number, id) <= ({up_block:UInt64}, {up_id:String})
       ORDER BY _block_number, id LIMIT {limit:UInt32}`,
      { after_block: after.block, after_id: after.id, up_block: upTo.block, up_id: upTo.id, limit },
    )
    return rows.map((row) => ({ place: { block: Number(row.block), id: row.id }, firing: fromRow(row) }))
  }

  /** When the first version written after the place `after` was written (its updated_at, ms); null when none was. */
  async firstWrittenAfter(after: FiringPlace): Promise<number | null> {
    const [row] = await queryRows<{ at: string | null }>(
      this.clickhouse,
      `SELECT if(count() = 0, NULL, toString(toUnixTimestamp64Milli(min(updated_at)))) AS at FROM ${this.tables.alertFirings}
       WHERE _block_number >= {block:UInt64} AND (_block_number, id) > ({block:UInt64}, {id:String})`,
      { block: after.block, id: after.id },
    )
    return row?.at == null ? null : Number(row.at)
  }

  /** A page of firings, newest first, with the filter's total. */
  async page(filter: FiringFilter, page: { limit: number; offset: number }): Promise<{ firings: AlertFiring[]; total: number }> {
    const conditions = ['1']
    if (filter.ruleId !== undefined) conditions.push('rule_id = {ruleId:String}')
    if (filter.token !== undefined) conditions.push('token = {token:String}')
    if (filter.since !== undefined) conditions.push("fired_at >= {since:DateTime64(3, 'UTC')}")
    if (filter.until !== undefined) conditions.push("fired_at < {until:DateTime64(3, 'UTC')}")
    const params = {
      ruleId: filter.ruleId ?? '',
      token: filter.token ?? '',
      since: dateTime64Param(filter.since ?? 0),
      until: dateTime64Param(filter.until ?? 0),
      limit: page.limit,
      offset: page.offset,
    }
    const where = conditions.join(' AND ')
    const [count] = await queryRows<{ n: string }>(this.clickhouse, `SELECT toString(count()) AS n FROM ${this.tables.alertFirings} FINAL WHERE ${where}`, params)
    const rows = await queryRows<FiringRow>(
      this.clickhouse,
      `SELECT ${READ_LIST} FROM ${this.tables.alertFirings} FINAL WHERE ${where}
       ORDER BY sequence DESC, id LIMIT {limit:UInt32} OFFSET {offset:UInt64}`,
      params,
    )
    return { firings: rows.map(fromRow), total: Number(count?.n ?? 0) }
  }
}

function fromRow(row: FiringRow): AlertFiring {
  return {
    id: row.id,
    rule_id: row.rule_id,
    kind: row.kind as AlertKind,
    token: row.token,
    wallet_address: row.wallet_address,
    window_start: Number(row.window_start_ms),
    window_end: Number(row.window_end_ms),
    value: Number(row.value),
    swap_keys: row.swap_keys,
    swaps: JSON.parse(row.evidence),
    status: row.status === 'retracted' ? 'retracted' : 'fired',
    sequence: Number(row.sequence),
    fired_at: Number(row.fired_ms),
    retracted_at: row.retracted_ms === null ? null : Number(row.retracted_ms),
  }
}
