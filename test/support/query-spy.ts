import type { ClickHouseClient } from '../../shared/storage/clickhouse.js'

/**
 * `client` as seen through a spy: each query's SQL is told to `onQuery` before it runs
 * (the tests count what a read costs). The spy is another object than the runtime's
 * client, so the store takes it for a server's: every read of the change feed asks
 * ClickHouse (api/feed-watch.ts).
 */
export function spyingOnQueries(client: ClickHouseClient, onQuery: (sql: string) => void): ClickHouseClient {
  return new Proxy(client, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver)
      if (prop === 'query' && typeof value === 'function') {
        return (...args: unknown[]) => {
          onQuery((args[0] as { query: string }).query)
          return (value as (...a: unknown[]) => unknown).apply(target, args)
        }
      }
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value
    },
  })
}
