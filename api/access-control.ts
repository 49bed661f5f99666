import type { RequestHandler } from 'express'
import type { HttpApiPolicy } from '../shared/platform/config.js'
import type { Logger } from '../shared/platform/logger.js'
import type { Redis } from '../shared/platform/redis.js'
import { apiKeyCheck } from './api-keys.js'
import { corsPolicy } from './cors.js'
import { rateLimiter } from './rate-limit.js'

/** Who may read the API, how often and from which browser origins (see root-app.ts for where each applies). */
export interface ReadAccess {
  /** Express's `trust proxy`: decides the client IP a per-IP limit counts. */
  trustProxy: HttpApiPolicy['trustProxy']
  cors: RequestHandler
  /** API key check, then the rate limit (per key, or per IP without keys). */
  guard: RequestHandler[]
}

export function readAccess(policy: HttpApiPolicy, redis: Redis, redisPrefix: string, logger: Logger): ReadAccess {
  return {
    trustProxy: policy.trustProxy,
    cors: corsPolicy(policy.corsOrigins),
    guard: [apiKeyCheck(policy.apiKeys), rateLimiter({ perMinute: policy.rateLimitPerMinute, redis, redisPrefix, logger })],
  }
}
