import type { Express } from 'express'

/** A route an Express app serves: `GET /tokens/:contract_address`. */
export interface MountedRoute {
  method: string
  path: string
}

/** What the router package keeps of each middleware or route (express 5). */
interface Layer {
  route?: { path: unknown; methods: Record<string, boolean> }
  handle?: { stack?: unknown }
  rawPath?: unknown
  slash?: boolean
}

function walk(stack: readonly Layer[], prefix: string, found: MountedRoute[]): void {
  for (const layer of stack) {
    if (layer.route) {
      for (const method of Object.keys(layer.route.methods)) {
        if (method !== '_all') found.push({ method: method.toUpperCase(), path: `${prefix}${String(layer.route.path)}` })
      }
    } else if (Array.isArray(layer.handle?.stack)) {
      walk(layer.handle.stack as Layer[], layer.slash ? prefix : `${prefix}${String(layer.rawPath)}`, found)
    }
  }
}

/**
 * Every route the app's router and its mounted routers declare (not those of a mounted
 * Express app: list that app separately). Middleware without a route (static files) is
 * not listed.
 */
export function mountedRoutes(app: Express): MountedRoute[] {
  const found: MountedRoute[] = []
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '', found)
  return found
}
