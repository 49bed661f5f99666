import { IndicatorState } from '../shared/candles/indicator-math/indicator-state.js'
import { redisKey, StoreScopedKeySpaces, type Redis } from '../shared/platform/redis.js'

type Multi = ReturnType<Redis['multi']>

/**
 * Where the engine keeps each token's carried indicator state: one Redis hash, field =
 * token, value = the state's bytes (~1.9 KB). Redis rather than a ClickHouse table: the
 * incremental step reads and rewrites every state once per 4-hour interval, and Redis
 * takes the write together with the cached result, in one MULTI per batch, so a state
 * never runs ahead of the result it belongs to.
 */
export class IndicatorStateStore {
  readonly key: string

  constructor(private readonly redis: Redis, prefix: string) {
    this.key = redisKey(prefix, StoreScopedKeySpaces.indicatorState, 'by-token')
  }

  /** Every token with a state. */
  tokens(): Promise<string[]> {
    return this.redis.hkeys(this.key)
  }

  /** The states of the given tokens; null for none, or for bytes that are not a state of this version. */
  async read(tokens: readonly string[]): Promise<Array<IndicatorState | null>> {
    if (tokens.length === 0) return []
    const raw = await this.redis.hmgetBuffer(this.key, ...tokens)
    return raw.map((bytes) => (bytes === null ? null : IndicatorState.fromBytes(bytes)))
  }

  /** Queues the write of states into a MULTI (the caller adds the results and executes it). */
  write(multi: Multi, states: ReadonlyArray<readonly [string, IndicatorState]>): void {
    if (states.length === 0) return
    multi.hset(this.key, ...states.flatMap(([token, state]) => [token, state.toBytes()]))
  }
}
