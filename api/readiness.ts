import type { ClickHouseClient } from '../shared/storage/clickhouse.js'
import { appliedVersions } from '../shared/storage/migrate.js'
import { migrations as allMigrations } from '../shared/storage/migrations/index.js'
import type { Migration } from '../shared/storage/migrations/migration.js'
import type { Redis } from '../shared/platform/redis.js'
import type { Tables } from '../shared/storage/tables.js'

export interface ReadinessDeps {
  clickhouse: ClickHouseClient
  tables: Tables
  redis: Redis
  /** The migrations that must be recorded as applied (default: every migration). */
  migrations?: readonly Migration[]
  /** A check that has not answered within this counts as down. */
  timeoutMs: number
}

/** What a client may be told is down: names only, never the error. */
export type Unready = 'clickhouse is unreachable' | 'redis is unreachable' | 'schema migrations are not applied'

export interface ReadinessFailure {
  what: Unready
  /** For the logs only. */
  err: unknown
}

export type Readiness = { ready: true } | { ready: false; failures: ReadinessFailure[] }

class CheckTimeout extends Error {
  constructor(timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`)
    this.name = 'CheckTimeout'
  }
}

async function within<T>(timeoutMs: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new CheckTimeout(timeoutMs)), timeoutMs)
  })
  try {
    return await Promise.race([work, timeout])
  } finally {
    clearTimeout(timer)
  }
}

async function clickhouseAnswers(clickhouse: ClickHouseClient): Promise<void> {
  const rs = await clickhouse.query({ query: 'SELECT 1 AS ok', format: 'JSONEachRow' })
  await rs.json()
}

async function redisAnswers(redis: Redis): Promise<void> {
  const reply = await redis.ping()
  if (reply !== 'PONG') throw new Error(`unexpected PING reply ${JSON.stringify(reply)}`)
}

async function migrationsApplied(deps: ReadinessDeps): Promise<void> {
  const applied = await appliedVersions(deps.clickhouse, deps.tables)
  const pending = (deps.migrations ?? allMigrations).filter((m) => !applied.has(m.version)).map((m) => m.version)
  if (pending.length > 0) throw new Error(`migrations not recorded as applied: ${pending.join(', ')}`)
}

async function failure(what: Unready, timeoutMs: number, check: () => Promise<void>): Promise<ReadinessFailure | null> {
  try {
    await within(timeoutMs, check())
    return null
  } catch (err) {
    return { what, err }
  }
}

/**
 * Ready when ClickHouse answers `SELECT 1`, Redis answers PING and every migration is
 * recorded as applied. The checks run together, each bounded by `timeoutMs`; the
 * migrations are only looked at when ClickHouse answers.
 */
export async function checkReadiness(deps: ReadinessDeps): Promise<Readiness> {
  const [clickhouse, redis] = await Promise.all([
    failure('clickhouse is unreachable', deps.timeoutMs, () => clickhouseAnswers(deps.clickhouse)),
    failure('redis is unreachable', deps.timeoutMs, () => redisAnswers(deps.redis)),
  ])
  const schema =
    clickhouse === null
      ? await failure('schema migrations are not applied', deps.timeoutMs, () => migrationsApplied(deps))
      : null
  const failures = [clickhouse, redis, schema].filter((f): f is ReadinessFailure => f !== null)
  return failures.length === 0 ? { ready: true } : { ready: false, failures }
}
