// The page's only source of data: the service's public JSON API, on this origin.

/** An error answer of the API (`{"status":"error","message":...}`), or a failure to reach it. */
export class ApiError extends Error {
  /**
   * @param {string} message the API's own message when it gave one
   * @param {number} status the HTTP status (0: no answer)
   */
  constructor(message, status) {
    super(message)
    this.name = 'ApiError'
    this.status = status
  }
}

/**
 * GET a path of the API and return the whole success envelope
 * (`{status, result, pagination?, message?}`).
 * @param {string} path e.g. `/tokens`
 * @param {Record<string, string | number>} [query]
 * @param {AbortSignal} [signal]
 */
export async function getEnvelope(path, query = {}, signal) {
  const params = new URLSearchParams()
  for (const [key, value] of Object.entries(query)) params.set(key, String(value))
  const url = params.size > 0 ? `${path}?${params}` : path
  let response
  try {
    response = await fetch(url, { headers: { accept: 'application/json' }, signal })
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') throw err
    throw new ApiError(`The API did not answer (${url}): ${err instanceof Error ? err.message : String(err)}`, 0)
  }
  let body
  try {
    body = await response.json()
  } catch {
    throw new ApiError(`${url} answered ${response.status} without a JSON body`, response.status)
  }
  if (!response.ok || body?.status !== 'success') {
    const message = typeof body?.message === 'string' ? body.message : `${url} answered ${response.status}`
    throw new ApiError(message, response.status)
  }
  return body
}

/**
 * GET a path and return its `result`.
 * @param {string} path
 * @param {Record<string, string | number>} [query]
 * @param {AbortSignal} [signal]
 */
export async function getResult(path, query = {}, signal) {
  return (await getEnvelope(path, query, signal)).result
}
