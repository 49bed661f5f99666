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
    const claims = records.filter((r) => !ids.has(r.contract_address))
    if (claims.length === 0) return ids
    // One round trip; commands run in order, so a second claim of an address in this batch
    // gets the first one's id back.
    const pipeline = this.redis.pipeline()
    for (const record of claims) {
      const key = redisKey(this.prefix, 'token-id', record.contract_address)
      pipeline.set(key, record.id ?? deriveTokenId(record.contract_address), 'EX', CLAIM_TTL_SECONDS, 'NX', 'GET')
    }
    const results = (await pipeline.exec()) ?? []
    claims.forEach((record, i) => {
      const [err, previous] = results[i] ?? [new Error('no reply')]
      if (err) throw err
      ids.set(record.contract_address, typeof previous === 'string' ? previous : (record.id ?? deriveTokenId(record.contract_address)))
    })
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
