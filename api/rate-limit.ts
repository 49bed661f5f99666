import type { RequestHandler } from 'express'
import { ipKeyGenerator, rateLimit, type ClientRateLimitInfo, type Logger as RateLimitLogger } from 'express-rate-limit'
import { RedisStore, type RedisReply } from 'rate-limit-redis'
import type { Logger } from '../shared/platform/logger.js'
import { redisKey, type Redis } from '../shared/platform/redis.js'
import { apiKeyIdOf } from './api-keys.js'
import { HttpError } from './http-error.js'
import { isRedisConnectionError } from '../shared/platform/redis-connection-errors.js'

export const RATE_LIMIT_WINDOW_MS = 60_000

/** Where the counters live: `<REDIS_PREFIX>:rate-limit:key:<key digest>` or `…:ip:<address>`. */
export function rateLimitKeyPrefix(redisPrefix: string): string {
  return `${redisKey(redisPrefix, 'rate-limit')}:`
}

export interface RateLimitOptions {
  /** Requests per minute per API key (or per client IP without keys); 0: no limiter at all. */
  perMinute: number
  /** The API's request/response connection (shared, not a connection of its own). */
  redis: Redis
  redisPrefix: string
  logger: Logger
}

function isRedisReply(value: unknown): value is RedisReply {
  const scalar = (v: unknown) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean'
  return scalar(value) || (Array.isArray(value) && value.every(scalar))
}

/**
 * rate-limit-redis loads its scripts once, when the limiter is created: if Redis was
 * down then, that failed load would be awaited by every later increment and the limits
 * would never apply again. A failed increment loads the script afresh for the next one.
 */
class RecoveringRedisStore extends RedisStore {
  override async increment(key: string): Promise<ClientRateLimitInfo> {
    try {
      return await super.increment(key)
    } catch (err) {
      const reloaded = this.loadIncrementScript()
      reloaded.catch(() => undefined)
      this.incrementScriptSha = reloaded
      throw err
    }
  }
}

/**
 * RATE_LIMIT_PER_MINUTE requests per fixed minute window per API key (the key's digest,
 * see api-keys.ts) or, without API keys, per client IP (an IPv6 client by its /56), the
 * counters in Redis so every API process shares them. Over the limit: a 429 with
 * `Retry-After` (seconds until the window ends) and the RateLimit/RateLimit-Policy
 * headers (IETF draft 7) on every response.
 *
 * While Redis is down the limiter lets requests through uncounted (fails open), rather
 * than answering 503 as the routes that need Redis do: the limit protects capacity, not
 * data; API keys are still checked (they come from the configuration, not Redis); and
 * the endpoints served from ClickHouse and memory (tokens, holdings, candles) keep
 * serving through a Redis outage instead of all becoming 503. The outage itself is
 * logged once by the connection's own listener (api-server.ts).
 */
export function rateLimiter(options: RateLimitOptions): RequestHandler {
  if (options.perMinute === 0) return (_req, _res, next) => next()
  const { redis, logger } = options
  let redisDown = false
  redis.on('error', () => (redisDown = true))
  redis.on('ready', () => (redisDown = false))

  const storeLogger: RateLimitLogger = {
    error: (err) => {
      if (isRedisConnectionError(err)) logger.debug('rate limit not applied: redis unavailable', { err })
      else logger.warn('rate limit not applied', { err })
    },
    warn: (err) => logger.warn('rate limiter', { err }),
  }

  return rateLimit({
    windowMs: RATE_LIMIT_WINDOW_MS,
    limit: options.perMinute,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    store: new RecoveringRedisStore({
      prefix: rateLimitKeyPrefix(options.redisPrefix),
      sendCommand: async (command: string, ...args: string[]) => {
        const reply: unknown = await redis.call(command, ...args)
        if (!isRedisReply(reply)) throw new Error(`unexpected reply from redis to ${command}`)
        return reply
      },
    }),
    // Not while an outage is known: a command would wait through the connection's retries first.
    skip: () => redisDown,
    passOnStoreError: true,
    logger: storeLogger,
    keyGenerator: (req) => {
      const keyId = apiKeyIdOf(req)
      return keyId === undefined ? `ip:${ipKeyGenerator(req.ip ?? 'unknown')}` : `key:${keyId}`
    },
    handler: (_req, res, next) => {
      const retryAfter = res.getHeader('Retry-After')
      next(
        new HttpError(
          429,
          `Too many requests: the limit is ${options.perMinute} per minute; retry after ${String(retryAfter ?? 60)} s`,
        ),
      )
    },
  })
}
