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
export const envSchema = z.object({
  NODE_ENV: z.string().default('development').describe('The Node environment name; the service does not act on it (libraries such as Express read it from the environment)'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000).describe('HTTP port of the API'),
  HOST: z.string().min(1).default('127.0.0.1').describe('Interface the API listens on: loopback by default; `0.0.0.0` (every interface) in containers'),
  HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000).describe('A client must send its request headers within this, or gets a 408 and is disconnected'),
  HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000).describe('A client must send its whole request within this (at least `HTTP_HEADERS_TIMEOUT_MS`)'),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(100).default(5_000).describe('An idle keep-alive connection is closed after this'),
  HTTP_MAX_CONNECTIONS: z.coerce.number().int().min(1).default(1_000).describe('Open connections at most; further ones are closed at once (logged at most once a minute)'),
  HTTP_SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(5_000).describe('On shutdown, how long requests in flight may finish before every connection is closed'),
  SWAP_STREAM_HEARTBEAT_MS: z.coerce.number().int().min(10).default(15_000).describe('GET /stream/swaps and /stream/alerts: how often an idle stream gets a heartbeat comment'),
  SWAP_STREAM_MAX_PENDING_BYTES: z.coerce.number().int().min(1_024).default(1_048_576).describe('GET /stream/swaps and /stream/alerts: a client with more bytes than this not yet taken by its connection is sent `closed` and disconnected'),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info').describe("pino's level: JSON lines on stderr (pretty on a terminal); one line per request at `debug`, `error` for a 5xx"),
  ADMIN_TOKEN: z
    .union([z.literal('').transform(() => undefined), z.string().regex(/^[\x21-\x7e]{16,}$/, 'must be empty or at least 16 printable characters without spaces')])
    .optional()
    .describe('Turns the operator endpoints under `/admin` on, behind `Authorization: Bearer <ADMIN_TOKEN>` (at least 16 characters); unset: they are 404'),
  API_URL: z.url().optional().describe('Where `npm run dead-letters` finds the running service (default `http://127.0.0.1:PORT`)'),
  API_KEYS: commaList.pipe(z.array(apiKey)).default([]).describe('Comma-separated keys (each at least 16 printable characters); when set, the read API needs one (`X-API-Key` or `Authorization: Bearer`)'),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(0).describe('Requests per minute per API key (per client IP without keys), counted in Redis; 0: no limit'),
  TRUST_PROXY: trustProxy.default(false).describe("Express's `trust proxy`: which proxies' `X-Forwarded-For` names the client (`false`, `true`, a hop count, or addresses/subnets)"),
  CORS_ORIGINS: commaList.pipe(z.array(corsOrigin)).refine((o) => !o.includes('*') || o.length === 1, 'use * alone or a list of origins').default([]).describe('`*` or comma-separated origins a browser page may read the API from; unset: no CORS'),
  CACHE_CLOSED_SERIES_MAX_AGE_S: z.coerce.number().int().min(0).default(3_600).describe('`max-age` (s) of a page of closed candles or indicator history over a past range (api/cache-control.ts); 0: `no-cache`'),

  CLICKHOUSE_URL: z.url().optional().describe('A ClickHouse server (`http://host:8123`); unset: the embedded engine (chDB)'),
  CLICKHOUSE_USER: z.string().default('default').describe('User name on the ClickHouse server'),
  CLICKHOUSE_PASSWORD: z.string().default('').describe('Password on the ClickHouse server'),
  CLICKHOUSE_DATABASE: identifier.default('smart_money').describe('Database of every table'),
  CLICKHOUSE_PATH: z.string().min(1).default('./data/clickhouse').describe('Data directory of the embedded engine'),
  CLICKHOUSE_CLUSTER: identifier.optional().describe("A cluster of the servers' configuration (needs `CLICKHOUSE_URL`): the schema is created in its cluster variant (docs/scale-out.md)"),
  CLICKHOUSE_FSYNC: booleanFlag.default(true).describe('fsync every inserted part before the insert, and so the job, is acknowledged (shared/storage/insert-durability.ts); `0`: the server defaults'),

  REDIS_URL: z.string().min(1).default('redis://127.0.0.1:6379').describe('Redis for the queues and caches'),
  REDIS_PREFIX: z.string().min(1).regex(/^[^\s{}]+$/, 'must not contain spaces or braces').default('smartmoney').describe('Prefix of every Redis key the service writes (queues and caches); one prefix per store'),
  REDIS_AUTOSTART: booleanFlag.default(true).describe('Start a private `redis-server` when nothing answers at `REDIS_URL` (embedded mode only)'),
  REDIS_DATA_DIR: z.string().min(1).default('./data/redis').describe('Data directory of that private Redis (append-only file)'),

  SAMPLE_DATA: booleanFlag.default(true).describe('Load the bundled sample on the first start of an empty embedded store'),

  // 16 jobs of 5,000 records in hand = two 40,000-row inserts: one being written while
  // the next fills (embedded ClickHouse inserts on one core; the worker works on the other).
  INGEST_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16).describe('Ingest jobs a worker process handles at once'),
  INGEST_FLUSH_ROWS: z.coerce.number().int().min(1).default(40_000).describe('Rows buffered per table before an insert'),
  INGEST_FLUSH_MS: z.coerce.number().int().min(1).default(500).describe('Longest wait of a buffered row before its insert'),
  INGEST_MAX_ATTEMPTS: z.coerce.number().int().min(1).default(10).describe('Attempts of an ingest job (set by the producer), exponential backoff from 500 ms'),
  INGEST_STALLED_MS: z.coerce.number().int().min(1_000).default(30_000).describe("An ingest job's lock duration: a job of a dead process is redelivered after about twice this"),
  INGEST_FAILED_JOBS_KEEP: z.coerce.number().int().min(0).default(200).describe('Failed ingest jobs kept (newest first) with their records, for inspection and retry'),
  INGEST_FAILED_JOBS_MAX_AGE_HOURS: z.coerce.number().int().min(1).default(7 * 24).describe('Failed ingest jobs older than this (hours) are removed'),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(100).default(15_000).describe('Forced exit when a graceful stop (or the drain after a crash) takes longer'),

  INDICATORS_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2).describe('Indicator jobs a process handles at once'),
  ALERT_DELIVERY_STALLED_MS: z.coerce.number().int().min(1_000).default(30_000).describe("An alert webhook delivery's lock duration: one in flight in a dead process is sent again (same `webhook-id`) after about twice this"),
  TA_ON_DEMAND_WAIT_MS: z.coerce.number().int().min(0).default(5_000).describe('How long GET /technical-analysis waits for an on-demand computation'),
  TA_NEGATIVE_CACHE_MS: z.coerce.number().int().min(0).default(30_000).describe("How long an API process remembers that a token's on-demand computation found no candles (0: not at all)"),
  INDICATORS_SCHEDULE_DELAY_MS: z.coerce.number().int().min(0).default(60_000).describe('Delay after each UTC 4-hour boundary before the scheduled `advance` runs'),
  CANDLE_REFRESH_MS: z.coerce.number().int().min(0).default(1_000).describe('How often the indicators role takes in the candle buckets ingestion marked and queues the recomputes they call for (0: only when read)'),
  TOKEN_FLOWS_REFRESH_MS: z.coerce.number().int().min(0).default(60_000).describe('How often the indicators role brings the stored token flows (the screener, GET /tokens/:address/flows) up to the change feed; a read brings them up itself first (0: only when read)'),
  TOKEN_DIRECTORY_REFRESH_MS: z.coerce.number().int().min(100).default(5_000).describe("The API's in-memory token metadata reloads every token this often, a backstop to the change events"),

  TRACKED_WALLETS_FILE: z.string().min(1).optional().describe('A file of tracked wallets: one address a line, optionally a name after it, `#` comments; re-read when it changes'),
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
    .optional()
    .describe('The selection rules of the tracked set, as JSON (served at GET /smart-money/rules); unset: the defaults of shared/platform/smart-money-settings.ts'),
  SERVED_WALLETS: z.enum(['all', 'tracked']).default('all').describe("Whose rows GET /swap-transactions and the holdings endpoints serve: every stored wallet's (`all`) or the tracked set's (`tracked`; the rest stay stored)"),
  TRACKED_SET_REFRESH_MS: z.coerce.number().int().min(100).default(5_000).describe('With `SERVED_WALLETS=tracked`: how often the indicators role looks for a changed tracked set (a new run, an edit of the file)'),
  WALLET_STATS_REFRESH_MS: z.coerce.number().int().min(0).default(60_000).describe("How often the indicators role brings the wallet statistics up to date when swaps changed (0: never in the background)"),
  WALLET_STATS_MAX_AGE_MS: z.coerce.number().int().min(1_000).default(3_600_000).describe('A statistics run at least this often without new swaps (the windows end at the run), and a full run at least this often'),
  RPC_URL: z.url().optional().describe('A JSON-RPC endpoint of an EVM node: set, `npm start` also follows its Uniswap swaps'),
  FOLLOW_V2_FACTORIES: addressList('0x5C69bEe701ef814a2B6a3EDD4B1652CB9cc5aA6f').describe('Uniswap V2-style factories (`PairCreated`) whose pools count, comma-separated; default: Ethereum mainnet'),
  FOLLOW_V3_FACTORIES: addressList('0x1F98431c8aD98523631AE4a59f267346ea31F984').describe('Uniswap V3 factories (`PoolCreated`) whose pools count, comma-separated; default: Ethereum mainnet'),
  FOLLOW_WETH: z
    .string()
    .regex(/^0x[0-9a-fA-F]{40}$/, 'must be an address')
    .default('0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2')
    .transform((s) => s.toLowerCase())
    .describe('WETH, priced from its stablecoin pools; a price anchor of the follower'),
  FOLLOW_STABLECOINS: addressList(
    '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48,0xdAC17F958D2ee523a2206206994597C13D831ec7,0x6B175474E89094C44Da98b954EedeAC495271d0F',
  ).describe('Stablecoins valued at 1 USD, comma-separated; default: USDC, USDT, DAI on mainnet'),
  FOLLOW_FROM_BLOCK: z.coerce.number().int().min(0).optional().describe('First block a follower without a checkpoint reads (`--from-block` overrides it); unset: the newest finalized block'),
  FINALITY_DEPTH: z.coerce.number().int().min(1).max(10_000).default(64).describe('Blocks below the head that may still be reorganized; deeper ones are final'),
  FOLLOW_POLL_MS: z.coerce.number().int().min(10).default(500).describe('How often the follower asks for the head when idle'),
  FOLLOW_MAX_LOG_RANGE: z.coerce.number().int().min(1).default(2_000).describe('Blocks per `eth_getLogs` at most (the range adapts below this)'),
  FOLLOW_MIN_LIQUIDITY_USD: z.coerce.number().min(0).default(10_000).describe('Pools holding less than this (USD, both sides) set no price'),
  FOLLOW_HOLDINGS: z.enum(['all', 'listed', 'off']).default('all').describe("Whose holdings the follower reads (`balanceOf` at the finalized block when they trade): every wallet it sees swap, `TRACKED_WALLETS_FILE`'s (`listed`), or none"),
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
  swapStream: SwapStreamConfig
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
    tokenFlowsRefreshMs: number
    alertDeliveryStalledMs: number
  }
  tokenDirectory: { refreshMs: number }
  /** Who is smart money: the listed wallets' file, the selection rules, the statistics' refresh. */
  smartMoney: {
    trackedWalletsFile: string | null
    rules: readonly SmartMoneyRule[]
    refreshMs: number
    maxAgeMs: number
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

/** GET /stream/swaps (api/swap-stream/) and GET /stream/alerts (api/alert-stream/). */
export interface SwapStreamConfig {
  heartbeatMs: number
  maxPendingBytes: number
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
    swapStream: { heartbeatMs: e.SWAP_STREAM_HEARTBEAT_MS, maxPendingBytes: e.SWAP_STREAM_MAX_PENDING_BYTES },
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
      tokenFlowsRefreshMs: e.TOKEN_FLOWS_REFRESH_MS,
      alertDeliveryStalledMs: e.ALERT_DELIVERY_STALLED_MS,
    },
    tokenDirectory: { refreshMs: e.TOKEN_DIRECTORY_REFRESH_MS },
    smartMoney: {
      trackedWalletsFile: e.TRACKED_WALLETS_FILE ?? null,
      rules: e.SMART_MONEY_RULES ?? DEFAULT_SMART_MONEY_RULES,
      refreshMs: e.WALLET_STATS_REFRESH_MS,
      maxAgeMs: e.WALLET_STATS_MAX_AGE_MS,
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
