import { HOUR_MS } from '../platform/time-units.js'
import type { Tables } from '../storage/tables.js'

/** The hour (since the epoch) of a row's `timestamp`, as token_wallet_hour_flows stores it. */
export const HOUR_OF_TIMESTAMP = `toUInt32(intDiv(toUnixTimestamp64Milli(timestamp), ${HOUR_MS}))`

/** Between `{fromMs:Int64}` (inclusive) and `{beforeMs:Int64}` (exclusive). */
const IN_WINDOW = `timestamp >= fromUnixTimestamp64Milli({fromMs:Int64}, 'UTC') AND timestamp < fromUnixTimestamp64Milli({beforeMs:Int64}, 'UTC')`

/**
 * SQL (a subquery) of the rows of token_wallet_hour_flows (schema/token-flows-schema.ts)
 * for the (token, hour) pairs `buckets` selects (columns token, hour), aggregated from the
 * swaps as every swap read serves them: FINAL, so a re-delivered swap counts once and a
 * retracted or moved one only where it now is. The buckets lie in [fromMs, beforeMs); the
 * token's swaps are found through its legs index, then read by key from the time table.
 * A swap of a token for itself is one swap, one buy and one sell of it.
 */
export function hourFlowsSql(tables: Tables, buckets: string): string {
  return `
    SELECT token, ${HOUR_OF_TIMESTAMP} AS hour, wallet_address,
           toUInt32(count()) AS swaps,
           toUInt32(countIf(value_usd IS NULL)) AS swaps_without_usd,
           toUInt32(countIf(token_bought_address = token)) AS buys,
           toUInt32(countIf(token_sold_address = token)) AS sells,
           sumIf(token_bought_amount, token_bought_address = token) AS bought_raw,
           sumIf(token_sold_amount, token_sold_address = token) AS sold_raw,
           sumIf(ifNull(value_usd, 0), token_bought_address = token) AS bought_usd,
           sumIf(ifNull(value_usd, 0), token_sold_address = token) AS sold_usd
    FROM (
      SELECT timestamp, wallet_address, token_bought_address, token_bought_amount,
             token_sold_address, token_sold_amount, value_usd
      FROM ${tables.swaps} FINAL
      WHERE ${IN_WINDOW} AND (timestamp, hash, chain_id) IN (
        SELECT timestamp, hash, chain_id FROM ${tables.swapLegs} FINAL
        WHERE ${IN_WINDOW} AND token_address IN (SELECT token FROM (${buckets}))
          AND (token_address, ${HOUR_OF_TIMESTAMP}) IN (SELECT token, hour FROM (${buckets})))
    )
    ARRAY JOIN arrayDistinct([token_bought_address, token_sold_address]) AS token
    WHERE (token, hour) IN (SELECT token, hour FROM (${buckets}))
    GROUP BY token, hour, wallet_address`
}
