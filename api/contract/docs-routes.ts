import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { Router } from 'express'
import { notFound } from '../http-error.js'
import { openApiDocument } from './openapi-document.js'

/** Swagger UI's files, served from its npm package: the page loads nothing from elsewhere. */
const SWAGGER_UI_DIR = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))
const SWAGGER_UI_FILES: ReadonlySet<string> = new Set(['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png'])

/** The paths these routes serve: pages and files, not API operations (so not in the document). */
export const DOCUMENTATION_PATHS = ['/openapi.json', '/docs', '/docs/init.js', '/docs/assets/:file'] as const

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Smart-money token data service: API reference</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
</head>
<body>
  <div id="reference"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
`

// validatorUrl null: no badge fetched from validator.swagger.io.
const INIT = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#reference',
  deepLinking: true,
  validatorUrl: null,
  tryItOutEnabled: true,
  displayRequestDuration: true,
})
`

/** GET /openapi.json (the OpenAPI 3.1 document of the public endpoints) and GET /docs (a page that renders it). */
export function docsRouter(): Router {
  const router = Router()
  const document = JSON.stringify(openApiDocument())

  router.get('/openapi.json', (_req, res) => {
    res.type('application/json').send(document)
  })
  router.get('/docs', (_req, res) => {
    res.type('text/html').send(PAGE)
  })
  router.get('/docs/init.js', (_req, res) => {
    res.type('text/javascript').send(INIT)
  })
  router.get('/docs/assets/:file', (req, res, next) => {
    const file = req.params.file
    if (!SWAGGER_UI_FILES.has(file)) throw notFound(`No such file: /docs/assets/${file}`)
    res.sendFile(join(SWAGGER_UI_DIR, file), { maxAge: '1d' }, (err) => {
      if (err) next(err)
    })
  })
  return router
}
