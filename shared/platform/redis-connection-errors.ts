/**
 * Recognises the errors ioredis raises while Redis cannot be reached, so the API can
 * answer 503 without ioredis's wording (and the queue factory need not log them again:
 * the connection policy of redis.ts logs the outage once). ioredis does not export its error classes, so
 * they are known by name and message. A route may wrap the error in its own (an
 * HttpError with the original message appended, or as `cause`): the whole chain is
 * looked at, by name and by message.
 */
const CONNECTION_ERROR_NAMES: ReadonlySet<string> = new Set(['MaxRetriesPerRequestError'])

const CONNECTION_ERROR_MESSAGES: readonly RegExp[] = [
  // MaxRetriesPerRequestError: the command waited through `maxRetriesPerRequest` reconnections.
  /Reached the max retries per request limit \(which is \d+\)/,
  // A command in flight when the connection closed and was not resent.
  /Connection is closed\./,
  // A command issued while the connection is down and the offline queue is off.
  /Stream isn't writeable and enableOfflineQueue options is false/,
]

const MAX_CAUSE_DEPTH = 5

export function isRedisConnectionError(err: unknown): boolean {
  let current: unknown = err
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && current instanceof Error; depth++) {
    if (CONNECTION_ERROR_NAMES.has(current.name)) return true
    const message = current.message
    if (CONNECTION_ERROR_MESSAGES.some((pattern) => pattern.test(message))) return true
    current = current.cause
  }
  return false
}
