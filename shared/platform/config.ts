import { DEFAULT_SETTLE_MS } from './settle-time.js'
import { z } from 'zod'
import { DEFAULT_SMART_MONEY_RULES, smartMoneyRulesSchema, type SmartMoneyRule } from './smart-money-settings.js'

const booleanFlag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes')

const identifier = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a plain identifier (letters, digits, underscore)')

const commaList = z.string().transform((v) => v.split(',').map((item) => item.trim()).filter((item) => item !== ''))

const apiKey = z.string().regex(/^[\x21-\x7e]{16,}$/, 'each API key must be at least 16 printable characters without spaces')

const corsOrigin = z.string().refine((o) => o === '*' || URL.canParse(o) && new URL(o).origin === o, {
  message: 'each CORS origin must be * or scheme://host[:port] exactly (no path, no trailing slash)',
})

const trustProxy = z.string().transform((v): boolean | number | string => {
  if (v === 'true' || v === 'false') return v === 'true'
  return /^\d+$/.test(v) ? Number(v) : v
})

/** Comma-separated addresses, lower-cased. */
const addressList = (defaults: string) => z
  .string()
  .default(defaults)
  .transform((s) => s.split(',').map((a) => a.trim()).filter((a) => a !== ''))
  .pipe(z.array(z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be addresses ("0x" and 40 hexadecimal characters), comma-separated')))
  .transform((list) => list.map((a) => a.toLowerCase()))

/** The only reader of process.env. Everything else receives a typed Config. */
const envSchema = z.object({
  NODE_ENV: z.string().default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** Interface the API listens on: loopback by default; 0.0.0.0 (all interfaces) in containers. */
  HOST: z.string().min(1).default('127.0.0.1'),
  /** A client must have sent its request headers within this (slow-header clients are cut off). */
  HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  /** A client must have sent its whole request within this. At least HTTP_HEADERS_TIMEOUT_MS. */
  HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
  /** How long an idle keep-alive connection stays open. */
  HTTP_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(100).default(5_000),
  /** Open connections at most; further ones are closed at once. */
  HTTP_MAX_CONNECTIONS: z.coerce.number().int().min(1).default(1_000),
  /** On shutdown, how long requests in flight may finish before every connection is closed. */
  HTTP_SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(5_000),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  /** Turns the admin endpoints (/admin/...) on, behind `Authorization: Bearer <ADMIN_TOKEN>`; unset: they are 404. */
  ADMIN_TOKEN: z
    .union([z.literal('').transform(() => undefined), z.string().regex(/^[\x21-\x7e]{16,}$/, 'must be empty or at least 16 printable characters without spaces')])
    .optional(),
  /** Where the dead-letters command finds the running service's API (default: http://127.0.0.1:PORT). */
  API_URL: z.url().optional(),
  /** API keys (comma-separated): when set, every read endpoint needs one (X-API-Key or Authorization: Bearer). */
  API_KEYS: commaList.pipe(z.array(apiKey)).default([]),
  /** Requests per minute per API key (per client IP without API_KEYS); 0: no limit. */
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(0),
  /** Express's `trust proxy`: which proxies' X-Forwarded-For names the client (false, true, a hop count, or addresses/subnets). */
  TRUST_PROXY: trustProxy.default(false),
  /** Origins a browser may read the API from (comma-separated, or `*`); unset: no CORS. */
  CORS_ORIGINS: commaList.pipe(z.array(corsOrigin)).refine((o) => !o.includes('*') || o.length === 1, 'use * alone or a list of origins').default([]),
  /** max-age (s) of a series whose candles had all closed (see api/cache-control.ts); 0: revalidate always. */
  CACHE_CLOSED_SERIES_MAX_AGE_S: z.coerce.number().int().min(0).default(3_600),

  CLICKHOUSE_URL: z.url().optional(),
  CLICKHOUSE_USER: z.string().default('default'),
  CLICKHOUSE_PASSWORD: z.string().default(''),
  CLICKHOUSE_DATABASE: identifier.default('smart_money'),
  CLICKHOUSE_PATH: z.string().min(1).default('./data/clickhouse'),
  /** A cluster of the ClickHouse servers' configuration: the schema is created in its cluster variant (docs/scale-out.md). */
  CLICKHOUSE_CLUSTER: identifier.optional(),
  /** fsync every inserted part before the insert (and so the job) is acknowledged (shared/storage/insert-durability.ts). */
  CLICKHOUSE_FSYNC: booleanFlag.default(true),

  REDIS_URL: z.string().min(1).default('redis://127.0.0.1:6379'),
  /** Prefix of every Redis key this service writes (BullMQ queues and caches). */
  REDIS_PREFIX: z.string().min(1).regex(/^[^\s{}]+$/, 'must not contain spaces or braces').default('smartmoney'),
  /** Start a private redis-server child when nothing answers at REDIS_URL (embedded mode only). */
  REDIS_AUTOSTART: booleanFlag.default(true),
  REDIS_DATA_DIR: z.string().min(1).default('./data/redis'),

  SAMPLE_DATA: booleanFlag.default(true),

  // 16 jobs of 5,000 records in hand = two 40,000-row inserts: one being written while
  // the next fills (embedded ClickHouse inserts on one core; the worker works on the other).
  INGEST_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16),
  INGEST_FLUSH_ROWS: z.coerce.number().int().min(1).default(40_000),
  INGEST_FLUSH_MS: z.coerce.number().int().min(1).default(500),
  INGEST_MAX_ATTEMPTS: z.coerce.number().int().min(1).default(10),
  /** How long an ingest job's lock lives without renewal: after a crash, its job is redelivered within about twice this. */
  INGEST_STALLED_MS: z.coerce.number().int().min(1_000).default(30_000),
  /** Failed ingest jobs kept (newest first) with their records, for inspection and retry. */
  INGEST_FAILED_JOBS_KEEP: z.coerce.number().int().min(0).default(200),
  /** Failed ingest jobs older than this are removed (hours). */
  INGEST_FAILED_JOBS_MAX_AGE_HOURS: z.coerce.number().int().min(1).default(7 * 24),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(100).default(15_000),

  INDICATORS_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  /** How long GET /technical-analysis waits for an on-demand computation. */
  TA_ON_DEMAND_WAIT_MS: z.coerce.number().int().min(0).default(5_000),
  /** How long the API remembers that a token's on-demand computation found no candles (0: never). */
  TA_NEGATIVE_CACHE_MS: z.coerce.number().int().min(0).default(30_000),
  /** Delay after each 4-hour boundary before the scheduled recompute runs. */
  INDICATORS_SCHEDULE_DELAY_MS: z.coerce.number().int().min(0).default(60_000),
  /** How often the stored candles take in the buckets ingestion marked changed (0: never in the background). */
  CANDLE_REFRESH_MS: z.coerce.number().int().min(0).default(1_000),
  /** The API's in-memory token directory reloads every token this often, a backstop to the change events. */
  TOKEN_DIRECTORY_REFRESH_MS: z.coerce.number().int().min(100).default(5_000),

  /** A file of tracked wallets: one address a line, optionally a name after it; `#` comments. Re-read when it changes. */
  TRACKED_WALLETS_FILE: z.string().min(1).optional(),
  /** The selection rules of the tracked set, as JSON (see shared/smart-money/rules.ts); unset: the defaults there. */
  SMART_MONEY_RULES: z
    .string()
    .transform((text, ctx) => {
      try {
        return JSON.parse(text) as unknown
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be JSON' })
        return z.NEVER
      }
    })
    .pipe(smartMoneyRulesSchema)
    .optional(),
  /**
   * Whose rows GET /swap-transactions and the holdings endpoints serve: every stored wallet's,
   * or only the tracked set's (the tracked-wallets file and the rules' passers, as GET /wallets;
   * the rest stay stored). See README "Served wallets".
   */
  SERVED_WALLETS: z.enum(['all', 'tracked']).default('all'),
  /** With SERVED_WALLETS=tracked: how often the indicators role looks for a changed tracked set (a new run, an edit of the file). */
  TRACKED_SET_REFRESH_MS: z.coerce.number().int().min(100).default(5_000),
  /** How often the indicators role recomputes every wallet's statistics when swaps changed (0: never in the background). */
  WALLET_STATS_REFRESH_MS: z.coerce.number().int().min(0).default(60_000),
  /** Recomputed at least this often even without new swaps: the windows end at the computation's time. */
  WALLET_STATS_MAX_AGE_MS: z.coerce.number().int().min(1_000).default(3_600_000),
  /** A statistics run takes every swap row stamped this long before it as stored: at least an ingest insert's longest time (shared/smart-money/seen-swaps.ts). */
  WALLET_STATS_SETTLE_MS: z.coerce.number().int().min(0).default(DEFAULT_SETTLE_MS),
  /** A JSON-RPC endpoint of an EVM node: set, `npm start` also follows its Uniswap swaps. */
  RPC_URL: z.url().optional(),
  /** Uniswap V2-style factories (PairCreated) and V3 factories (PoolCreated), comma-separated; defaults: Ethereum mainnet. */
  FOLLOW_V2_FACTORIES: addressList('0x5C69bEe701ef814a2B6a3EDD4B1652CB9cc5aA6f'),
  FOLLOW_V3_FACTORIES: addressList('0x1F98431c8aD98523631AE4a59f267346ea31F984'),
  /** WETH, priced from its stablecoin pools; the stablecoins valued at 1 USD. */
  FOLLOW_WETH: z
    .string()
    .regex(/^0x[0-9a-fA-F]{40}$/, 'must be an address')
    .default('0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2')
    .transform((s) => s.toLowerCase()),
  FOLLOW_STABLECOINS: addressList(
    '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48,0xdAC17F958D2ee523a2206206994597C13D831ec7,0x6B175474E89094C44Da98b954EedeAC495271d0F',
  ),
  /** First block a follower with no checkpoint reads (unset: the newest finalized block). */
  FOLLOW_FROM_BLOCK: z.coerce.number().int().min(0).optional(),
  /** Blocks below the head that can still be reorganized; deeper ones are final. */
  FINALITY_DEPTH: z.coerce.number().int().min(1).max(10_000).default(64),
  FOLLOW_POLL_MS: z.coerce.number().int().min(10).default(500),
  /** Blocks per eth_getLogs at most (the range adapts below this). */
  FOLLOW_MAX_LOG_RANGE: z.coerce.number().int().min(1).default(2_000),
  /** Pools with less than this (USD, both sides) are not used for prices. */
  FOLLOW_MIN_LIQUIDITY_USD: z.coerce.number().min(0).default(10_000),
  /** Whose holdings the follower reads (balanceOf at the finalized block when they trade): every wallet it sees swap, TRACKED_WALLETS_FILE's, or none. */
  FOLLOW_HOLDINGS: z.enum(['all', 'listed', 'off']).default('all'),
}).refine((e) => e.HTTP_HEADERS_TIMEOUT_MS <= e.HTTP_REQUEST_TIMEOUT_MS, {
  path: ['HTTP_HEADERS_TIMEOUT_MS'],
  message: 'must not exceed HTTP_REQUEST_TIMEOUT_MS',
}).refine((e) => e.FOLLOW_HOLDINGS !== 'listed' || e.TRACKED_WALLETS_FILE !== undefined, {
  path: ['FOLLOW_HOLDINGS'],
  message: 'listed needs TRACKED_WALLETS_FILE (the wallets whose holdings to read)',
}).refine((e) => e.SERVED_WALLETS === 'all' || e.CLICKHOUSE_CLUSTER === undefined, {
  path: ['SERVED_WALLETS'],
  message: 'tracked is not supported on a cluster yet (CLICKHOUSE_CLUSTER): its reads filter by a subquery of a Distributed table',
}).refine((e) => e.CLICKHOUSE_CLUSTER === undefined || e.CLICKHOUSE_URL !== undefined, {
  path: ['CLICKHOUSE_CLUSTER'],
  message: 'needs CLICKHOUSE_URL (a cluster is made of ClickHouse servers, not the embedded engine)',
})

export type Env = z.input<typeof envSchema>

export interface Config {
  nodeEnv: string
  port: number
  host: string
  http: HttpServerConfig
  httpApi: HttpApiPolicy
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent'
  /** The admin endpoints: off without a token. `apiUrl`: the running service, for the dead-letters command. */
  admin: { token: string | undefined; apiUrl: string }
  clickhouse:
    | { mode: 'server'; url: string; user: string; password: string; database: string }
    | { mode: 'embedded'; path: string; database: string }
  /** How the store is laid out and written: one server or a cluster (null), inserts fsynced or not. */
  storage: { cluster: string | null; fsync: boolean }
  redis: { url: string; prefix: string; autostart: boolean; dataDir: string }
  sampleData: boolean
  ingest: {
    concurrency: number
    flushRows: number
    flushMs: number
    maxAttempts: number
    stalledMs: number
    /** Failed jobs kept at most, and for how long (seconds): their records stay for inspection. */
    failedJobs: { keep: number; maxAgeSeconds: number }
  }
  indicators: {
    concurrency: number
    onDemandWaitMs: number
    negativeCacheMs: number
    scheduleDelayMs: number
    candleRefreshMs: number
  }
  tokenDirectory: { refreshMs: number }
  /** Who is smart money: the listed wallets' file, the selection rules, the statistics' refresh. */
  smartMoney: {
    trackedWalletsFile: string | null
    rules: readonly SmartMoneyRule[]
    refreshMs: number
    maxAgeMs: number
    settleMs: number
    servedWallets: 'all' | 'tracked'
    trackedSetRefreshMs: number
  }
  follower: FollowerConfig
  shutdownTimeoutMs: number
}

/** Limits of the API's HTTP server (see HTTP_* in the environment schema). */
export interface HttpServerConfig {
  headersTimeoutMs: number
  requestTimeoutMs: number
  keepAliveTimeoutMs: number
  maxConnections: number
  shutdownGraceMs: number
}

/** Who may call the read API and how often, from where, and how long responses may be cached. */
export interface HttpApiPolicy {
  /** Empty: no key needed. */
  apiKeys: readonly string[]
  /** 0: no limit. */
  rateLimitPerMinute: number
  trustProxy: boolean | number | string
  /** Empty: CORS off; ['*']: any origin. */
  corsOrigins: readonly string[]
  closedSeriesMaxAgeS: number
}

/** The chain follower (follower/): where it reads and what it recognizes. Addresses lower case. */
export interface FollowerConfig {
  rpcUrl: string | null
  v2Factories: string[]
  v3Factories: string[]
  weth: string
  stablecoins: string[]
  fromBlock: number | null
  finalityDepth: number
  pollMs: number
  maxLogRange: number
  minLiquidityUsd: number
  /** Whose holdings are read: every wallet seen swapping, the tracked-wallets file's, or none. */
  holdings: { wallets: 'all' | 'listed' | 'off'; trackedWalletsFile: string | null }
}

export class ConfigError extends Error {}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = envSchema.safeParse(env)
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')
    throw new ConfigError(`Invalid configuration: ${problems}`)
  }
  const e = parsed.data
  return {
    nodeEnv: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    http: {
      headersTimeoutMs: e.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: e.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      maxConnections: e.HTTP_MAX_CONNECTIONS,
      shutdownGraceMs: e.HTTP_SHUTDOWN_GRACE_MS,
    },
    httpApi: {
      apiKeys: e.API_KEYS,
      rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
      trustProxy: e.TRUST_PROXY,
      corsOrigins: e.CORS_ORIGINS,
      closedSeriesMaxAgeS: e.CACHE_CLOSED_SERIES_MAX_AGE_S,
    },
    logLevel: e.LOG_LEVEL,
    admin: { token: e.ADMIN_TOKEN, apiUrl: (e.API_URL ?? `http://127.0.0.1:${e.PORT}`).replace(/\/+$/, '') },
    clickhouse: e.CLICKHOUSE_URL
      ? {
          mode: 'server',
          url: e.CLICKHOUSE_URL,
          user: e.CLICKHOUSE_USER,
          password: e.CLICKHOUSE_PASSWORD,
          database: e.CLICKHOUSE_DATABASE,
        }
      : { mode: 'embedded', path: e.CLICKHOUSE_PATH, database: e.CLICKHOUSE_DATABASE },
    storage: { cluster: e.CLICKHOUSE_CLUSTER ?? null, fsync: e.CLICKHOUSE_FSYNC },
    redis: { url: e.REDIS_URL, prefix: e.REDIS_PREFIX, autostart: e.REDIS_AUTOSTART, dataDir: e.REDIS_DATA_DIR },
    sampleData: e.SAMPLE_DATA,
    ingest: {
      concurrency: e.INGEST_CONCURRENCY,
      flushRows: e.INGEST_FLUSH_ROWS,
      flushMs: e.INGEST_FLUSH_MS,
      maxAttempts: e.INGEST_MAX_ATTEMPTS,
      stalledMs: e.INGEST_STALLED_MS,
      failedJobs: { keep: e.INGEST_FAILED_JOBS_KEEP, maxAgeSeconds: e.INGEST_FAILED_JOBS_MAX_AGE_HOURS * 3600 },
    },
    indicators: {
      concurrency: e.INDICATORS_CONCURRENCY,
      onDemandWaitMs: e.TA_ON_DEMAND_WAIT_MS,
      negativeCacheMs: e.TA_NEGATIVE_CACHE_MS,
      scheduleDelayMs: e.INDICATORS_SCHEDULE_DELAY_MS,
      candleRefreshMs: e.CANDLE_REFRESH_MS,
    },
    tokenDirectory: { refreshMs: e.TOKEN_DIRECTORY_REFRESH_MS },
    smartMoney: {
      trackedWalletsFile: e.TRACKED_WALLETS_FILE ?? null,
      rules: e.SMART_MONEY_RULES ?? DEFAULT_SMART_MONEY_RULES,
      refreshMs: e.WALLET_STATS_REFRESH_MS,
      maxAgeMs: e.WALLET_STATS_MAX_AGE_MS,
      settleMs: e.WALLET_STATS_SETTLE_MS,
      servedWallets: e.SERVED_WALLETS,
      trackedSetRefreshMs: e.TRACKED_SET_REFRESH_MS,
    },
    follower: {
      rpcUrl: e.RPC_URL ?? null,
      v2Factories: e.FOLLOW_V2_FACTORIES,
      v3Factories: e.FOLLOW_V3_FACTORIES,
      weth: e.FOLLOW_WETH,
      stablecoins: e.FOLLOW_STABLECOINS,
      fromBlock: e.FOLLOW_FROM_BLOCK ?? null,
      finalityDepth: e.FINALITY_DEPTH,
      pollMs: e.FOLLOW_POLL_MS,
      maxLogRange: e.FOLLOW_MAX_LOG_RANGE,
      minLiquidityUsd: e.FOLLOW_MIN_LIQUIDITY_USD,
      holdings: { wallets: e.FOLLOW_HOLDINGS, trackedWalletsFile: e.TRACKED_WALLETS_FILE ?? null },
    },
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
  }
}
