import { Router } from 'express'

/**
 * One router holding the routes and middleware of several, in their order. Express runs
 * every mounted router as one more dispatch per request (the request's baseUrl, params and
 * next saved and restored) even when none of its routes match: a request to the last of
 * the read API's routers passed through ten of them. The routers given must be
 * plain ones, as every router here is: default options (their layers are built with
 * them) and no router.param handlers (those stay behind).
 */
export function routeTable(...routers: Router[]): Router {
  const table = Router()
  for (const router of routers) table.stack.push(...router.stack)
  return table
}
