import type { ClickHouseClient } from '../shared/clickhouse.js'
import { deriveTokenId } from '../shared/ids.js'
import { redisKey, type Redis } from '../shared/redis.js'
import type { TokenRecord } from '../shared/records.js'
import type { Tables } from '../shared/tables.js'

/** How long a claimed id is remembered in Redis: far longer than any flush takes. */
const CLAIM_TTL_SECONDS = 7 * 24 * 3600

/**
 * A token's id never changes once assigned: the first id written for an address wins.
 * ClickHouse holds the ids already stored; for a new address the id (the producer's, or
 * the derived one) is claimed with an atomic SET NX in Redis, so two jobs carrying the
 * same new token with different ids, in this process or another, agree before either
 * is inserted.
 */
export class TokenIdRegistry {
  constructor(
    private readonly clickhouse: ClickHouseClient,
    private readonly tables: Tables,
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  /** The id to write for each record's address (keyed by lower-case address). */
  async resolve(records: readonly TokenRecord[]): Promise<Map<string, string>> {
    const ids = await this.storedIds([...new Set(records.map((r) => r.contract_address))])
    for (const record of records) {
      const address = record.contract_address
      if (ids.has(address)) continue
      const candidate = record.id ?? deriveTokenId(address)
      const key = redisKey(this.prefix, 'token-id', address)
      const previous = await this.redis.set(key, candidate, 'EX', CLAIM_TTL_SECONDS, 'NX', 'GET')
      ids.set(address, previous ?? candidate)
    }
    return ids
  }

  private async storedIds(addresses: string[]): Promise<Map<string, string>> {
    if (addresses.length === 0) return new Map()
    const rs = await this.clickhouse.query({
      query: `SELECT contract_address, argMin(id, updated_at) AS id
        FROM ${this.tables.tokens}
        WHERE contract_address IN {addresses:Array(String)}
        GROUP BY contract_address`,
      query_params: { addresses },
      format: 'JSONEachRow',
    })
    const rows = await rs.json<{ contract_address: string; id: string }>()
    return new Map(rows.map((r) => [r.contract_address, r.id]))
  }
}
