/**
 * An `IN` over a list passed as an `Array(String)` query parameter, written as a set built by
 * a subquery: `x IN ${listSet('tokens')}`. For lists without a small bound.
 *
 * ClickHouse 26.7 (chDB 3.4) answers `x IN {tokens:Array(String)}` by a linear search of the
 * literal once it holds more than about 20,000 elements (36 s over 200,000 rows with 22,000;
 * docs/decisions/0008-large-lists-as-subquery-sets.md). Bounded lists (a token id's
 * addresses, at most 2,000 refolded wallets) keep the plain form.
 */
export function listSet(param: string): string {
  return `(SELECT arrayJoin({${param}:Array(String)}))`
}
