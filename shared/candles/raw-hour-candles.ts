import type { Tables } from '../storage/tables.js'
import { listSet } from '../storage/list-param.js'
import { HOUR_MS } from '../platform/time-units.js'

/**
 * SQL (a subquery) of one-hour candles aggregated from the raw rows of the tokens in
 * `{tokens:Array(String)}`, over [`{from:DateTime64(3)}`, `{before:DateTime64(3)}`):
 * token, bucket (hours since the epoch), open, high, low, close, volume. What the stored
 * candles are re-aggregated from (shared/candles/candle-refresh.ts):
 * - each swap with a value_usd (> 0: a price record must be > 0 too) gives one
 *   observation per leg whose token has known decimals and a non-zero amount:
 *   price = value_usd / decimal-adjusted amount, volume = value_usd;
 * - each price record gives price_usd, volume = volume_usd or 0.
 * Re-delivered records are read once (FINAL on the ReplacingMergeTree tables; retracted
 * swaps not at all). Open and close are the first and last price by time; ties in time
 * are broken by the record's key (a price record first, then swaps in the order of a
 * 64-bit hash of their transaction hash and leg: cheaper to carry through the aggregation
 * than the strings), so the result is deterministic. A token's swaps are found through
 * its legs index, not by scanning every swap.
 */
export function rawHourCandlesSql(tables: Tables): string {
  const window = 'timestamp >= {from:DateTime64(3)} AND timestamp < {before:DateTime64(3)}'
  return `
    SELECT
      token,
      toUInt32(intDiv(toUnixTimestamp64Milli(ts), ${HOUR_MS})) AS bucket,
      argMin(price, (ts, tiebreak)) AS open,
      max(price) AS high,
      min(price) AS low,
      argMax(price, (ts, tiebreak)) AS close,
      sum(volume) AS volume
    FROM (
      SELECT contract_address AS token, timestamp AS ts, price_usd AS price,
             ifNull(volume_usd, 0) AS volume, toUInt64(0) AS tiebreak
      FROM ${tables.prices} FINAL
      WHERE contract_address IN ${listSet('tokens')} AND ${window}
      UNION ALL
      SELECT legs.token AS token, legs.ts AS ts,
             legs.usd / (toFloat64(legs.amount) / pow(10, meta.decimals)) AS price,
             legs.usd AS volume, legs.tiebreak AS tiebreak
      FROM (
        SELECT leg.1 AS token, timestamp AS ts, leg.2 AS amount, assumeNotNull(value_usd) AS usd,
               bitOr(cityHash64(hash, leg.3), 1) AS tiebreak
        FROM (
          SELECT timestamp, hash, value_usd, token_sold_address, token_sold_amount,
                 token_bought_address, token_bought_amount
          FROM ${tables.swaps} FINAL
          WHERE value_usd > 0 AND ${window}
            AND (timestamp, hash, chain_id) IN (
              SELECT timestamp, hash, chain_id FROM ${tables.swapLegs} FINAL
              WHERE token_address IN ${listSet('tokens')} AND ${window})
        )
        ARRAY JOIN [(token_sold_address, token_sold_amount, ':sold'),
                    (token_bought_address, token_bought_amount, ':bought')] AS leg
        WHERE leg.2 > 0 AND leg.1 IN ${listSet('tokens')}
      ) AS legs
      INNER JOIN (SELECT contract_address, decimals FROM ${tables.tokens} FINAL
                  WHERE contract_address IN ${listSet('tokens')}) AS meta
        ON meta.contract_address = legs.token
    )
    GROUP BY token, bucket`
}
