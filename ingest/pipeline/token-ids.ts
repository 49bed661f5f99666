import type { ClickHouseClient } from '../../shared/storage/clickhouse.js'
import { deriveTokenId } from '../../shared/platform/ids.js'
import { redisKey, StoreScopedKeySpaces, type Redis } from '../../shared/platform/redis.js'
import type { TokenRecord } from '../../shared/records/records.js'
import type { Tables } from '../../shared/storage/tables.js'
import { ADDRESS_PATTERN as ADDRESS_SHAPED } from '../../shared/platform/hex-patterns.js'

/** How long a claimed id is remembered in Redis: far longer than any flush takes. */
const CLAIM_TTL_SECONDS = 7 * 24 * 3600


/** What a job's token records get: the id to write per address, or the reason a record is refused. */
export interface IdAssignment {
  /** The id to write for each accepted record's address (keyed by lower-case address). */
  ids: Map<string, string>
  /** Records whose id is held by another token, with the reason. */
  refused: Map<TokenRecord, string>
}

/**
 * Claims, in order, for each record of a job: ARGV[1] is the TTL, then four values per
 * record: the address's claim key, the id's owner key ('' when the id is the address
 * itself), the id wanted, the address, and the id's owner in ClickHouse ('' if none).
 * An address already claimed keeps its id (`=id`); otherwise the id is refused if another
 * address holds it (`!owner`), else both are claimed together (`=id`). One script per
 * job, so a job costs one round trip and two jobs never both get one id.
 */
const CLAIM_SCRIPT = `
local ttl = ARGV[1]
local out = {}
for i = 2, #ARGV, 5 do
  local addressKey, ownerKey, id, address, storedOwner = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4]
  local current = redis.call('GET', addressKey)
  if current then
    out[#out + 1] = '=' .. current
  else
    local owner = storedOwner
    if owner == '' and ownerKey ~= '' then owner = redis.call('GET', ownerKey) or '' end
    if owner ~= '' and owner ~= address then
      out[#out + 1] = '!' .. owner
    else
      if ownerKey ~= '' then redis.call('SET', ownerKey, address, 'EX', ttl) end
      redis.call('SET', addressKey, id, 'EX', ttl)
      out[#out + 1] = '=' .. id
    end
  end
end
return out`

/**
 * A token's id never changes once assigned, and names one token: the first id written for
 * an address wins, and an id held by one token is refused to any other (a lookup by id
 * must find one token). ClickHouse holds the ids already stored, and who holds them; for a
 * new address the id (the producer's, or the derived one) is claimed atomically in Redis
 * together with its ownership, so two jobs carrying tokens with the same new id, in this
 * process or another, agree before either is inserted. One ClickHouse query and one Redis
 * round trip per job. (An id shaped like an address is only ever the token's own: the
 * schema refuses any other, see shared/records/records.ts.)
 */
export class TokenIdRegistry {
  constructor(
    private readonly clickhouse: ClickHouseClient,
    private readonly tables: Tables,
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async assign(records: readonly TokenRecord[]): Promise<IdAssignment> {
    const addresses = [...new Set(records.map((r) => r.contract_address))]
    const wantedIds = [...new Set(records.map(ownedId).filter((id): id is string => id !== undefined))]
    const stored = await this.stored(addresses, wantedIds)
    const ids = new Map<string, string>()
    const refused = new Map<TokenRecord, string>()
    const claims: TokenRecord[] = []
    for (const record of records) {
      const storedId = stored.idOf.get(record.contract_address)
      if (storedId !== undefined) ids.set(record.contract_address, storedId)
      else claims.push(record)
    }
    if (claims.length === 0) return { ids, refused }

    const args: string[] = [String(CLAIM_TTL_SECONDS)]
    for (const record of claims) {
      const owned = ownedId(record)
      args.push(
        redisKey(this.prefix, StoreScopedKeySpaces.tokenIdClaim, record.contract_address),
        owned === undefined ? '' : redisKey(this.prefix, StoreScopedKeySpaces.tokenIdOwner, owned),
        wantedId(record),
        record.contract_address,
        owned === undefined ? '' : (stored.ownerOf.get(owned) ?? ''),
      )
    }
    const replies = await this.redis.eval(CLAIM_SCRIPT, 0, ...args)
    if (!Array.isArray(replies) || replies.length !== claims.length) throw new Error('token id claims: unexpected reply from Redis')
    claims.forEach((record, i) => {
      const reply = String(replies[i])
      if (reply.startsWith('=')) ids.set(record.contract_address, reply.slice(1))
      else refused.set(record, `id: "${wantedId(record)}" already belongs to token ${reply.slice(1)}`)
    })
    return { ids, refused }
  }

  /** The first id of each address, and the first address holding each id, as stored. */
  private async stored(addresses: string[], ids: string[]): Promise<{ idOf: Map<string, string>; ownerOf: Map<string, string> }> {
    const idOf = new Map<string, string>()
    const ownerOf = new Map<string, string>()
    if (addresses.length === 0) return { idOf, ownerOf }
    const rs = await this.clickhouse.query({
      query: `SELECT contract_address, argMin(id, updated_at) AS first_id, min(updated_at) AS first_at
        FROM ${this.tables.tokens}
        WHERE contract_address IN {addresses:Array(String)} OR id IN {ids:Array(String)}
        GROUP BY contract_address
        ORDER BY first_at, contract_address`,
      query_params: { addresses, ids },
      format: 'JSONEachRow',
    })
    const rows = await rs.json<{ contract_address: string; first_id: string }>()
    const wanted = new Set(addresses)
    for (const row of rows) {
      if (wanted.has(row.contract_address)) idOf.set(row.contract_address, row.first_id)
      if (!ownerOf.has(row.first_id)) ownerOf.set(row.first_id, row.contract_address)
    }
    return { idOf, ownerOf }
  }
}

/** The id a new token would get: the producer's, else the derived one. */
function wantedId(record: TokenRecord): string {
  return record.id ?? deriveTokenId(record.contract_address)
}

/** A producer id other tokens could want (not the token's own address): its ownership is claimed. */
function ownedId(record: TokenRecord): string | undefined {
  return record.id !== undefined && !ADDRESS_SHAPED.test(record.id) ? record.id : undefined
}
