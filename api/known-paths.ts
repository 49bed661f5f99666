/**
 * Every path the API serves, as its routes declare them. Requests with a method other
 * than GET or HEAD never reach the routes (see method-guard.ts), so this list is what
 * tells a 405 (a known path) from a 404. test/api-http-methods.test.ts checks each one
 * answers GET.
 */
export const KNOWN_PATHS: readonly string[] = [
  '/health',
  '/ready',
  '/metrics',
  '/tokens',
  '/tokens/:contract_address',
  '/tokens/:contract_address/candles',
  '/holdings',
  '/holdings/token/:contract_address',
  '/holdings/:id',
  '/swap-transactions',
  '/swap-transactions/:hash',
  '/technical-analysis',
  '/technical-analysis/history',
]

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/** Matches as Express's routes do: case-insensitive, a trailing slash allowed, a parameter is one segment. */
function pathPattern(path: string): RegExp {
  const segments = path
    .split('/')
    .slice(1)
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : escapeRegExp(segment)))
  return new RegExp(`^/${segments.join('/')}/?$`, 'i')
}

const patterns = KNOWN_PATHS.map(pathPattern)

export function isKnownPath(path: string): boolean {
  return patterns.some((pattern) => pattern.test(path))
}
