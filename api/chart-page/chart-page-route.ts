import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import express, { Router, type NextFunction, type Response } from 'express'
import { HttpError } from '../http-error.js'

/** The page's own files (HTML, CSS, plain ES modules), served as they are: no build step. */
const PAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), 'page')

/** Where the page's assets live; the HTML and modules refer to them under this path. */
export const CHART_PAGE_ASSETS = '/chart-page'

/**
 * TradingView's standalone ES module build (no imports of its own), from the installed
 * package. Resolved per request, not at start-up: an install without the package serves
 * the API all the same, and the page says why its chart is missing.
 */
function chartLibraryFile(): string | undefined {
  try {
    const packageJson = createRequire(import.meta.url).resolve('lightweight-charts/package.json')
    return join(dirname(packageJson), 'dist', 'lightweight-charts.standalone.production.mjs')
  } catch {
    return undefined
  }
}

/**
 * Only this origin's scripts and API: the page loads nothing from elsewhere. Inline
 * styles are allowed because the chart library sizes its canvases through `style`.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
].join('; ')

/** A file of ours that cannot be sent is the server's fault, not the client's. */
function sendFailed(next: NextFunction, what: string) {
  return (err: Error | undefined) => {
    if (err) next(new HttpError(500, `The chart page could not send ${what}`, { cause: err }))
  }
}

function pageHeaders(res: Response): void {
  res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY)
  res.setHeader('X-Content-Type-Options', 'nosniff')
}

/**
 * GET /: the chart page, a client of the public API only (it calls the same endpoints any
 * client would). Its files under /chart-page/, the chart library at
 * /chart-page/vendor/lightweight-charts.mjs. An unknown asset falls through to the API's
 * JSON 404.
 */
export function chartPageRouter(): Router {
  const router = Router()

  router.get('/', (_req, res, next) => {
    pageHeaders(res)
    res.sendFile(join(PAGE_DIR, 'index.html'), { headers: { 'Cache-Control': 'no-cache' } }, sendFailed(next, 'its HTML'))
  })

  router.get(`${CHART_PAGE_ASSETS}/vendor/lightweight-charts.mjs`, (_req, res, next) => {
    const file = chartLibraryFile()
    if (file === undefined) {
      next(new HttpError(404, 'The chart library is not installed: npm install (lightweight-charts)'))
      return
    }
    res.setHeader('X-Content-Type-Options', 'nosniff')
    res.type('text/javascript')
    res.sendFile(file, { headers: { 'Cache-Control': 'no-cache' } }, sendFailed(next, 'the chart library'))
  })

  router.use(
    CHART_PAGE_ASSETS,
    express.static(PAGE_DIR, {
      index: false,
      redirect: false,
      dotfiles: 'ignore',
      maxAge: 0,
      setHeaders: pageHeaders,
    }),
  )

  return router
}
