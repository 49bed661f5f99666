import { expect } from 'vitest'
import { getJson } from './http.js'

/**
 * Pages through a list endpoint from offset 0 by `limit` until a short page, checking
 * each page's pagination object; returns every record and each page's total.
 */
export async function pageThrough(url: string, limit: number): Promise<{ records: any[]; totals: number[] }> {
  const records: any[] = []
  const totals: number[] = []
  for (let offset = 0; ; offset += limit) {
    const sep = url.includes('?') ? '&' : '?'
    const { status, body } = await getJson(`${url}${sep}limit=${limit}&offset=${offset}`)
    expect(status).toBe(200)
    expect(body.status).toBe('success')
    // Swap lists also carry next_cursor (keyset paging); the offset fields are the same.
    const { next_cursor: _next, ...offsetFields } = body.pagination
    expect(offsetFields).toEqual({ total: body.pagination.total, limit, offset })
    totals.push(body.pagination.total)
    records.push(...body.result)
    if (body.result.length < limit) break
  }
  return { records, totals }
}
