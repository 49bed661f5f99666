import { DOCUMENTATION_PATHS } from './contract/docs-routes.js'
import { PUBLIC_ENDPOINTS } from './contract/public-endpoints.js'

/**
 * Every path the API serves: the contract's endpoints, the documentation and the pages.
 * Requests with a method other than GET or HEAD never reach the routes (see
 * method-guard.ts), so this list is what tells a 405 (a known path) from a 404.
 * test/api-http-edges.test.ts checks each one answers GET.
 */
export const KNOWN_PATHS: readonly string[] = [
  '/',
  ...PUBLIC_ENDPOINTS.map((endpoint) => endpoint.path),
  ...DOCUMENTATION_PATHS,
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
