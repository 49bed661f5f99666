import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { queryRows } from '../shared/storage/query-rows.js'
import { withMergesHeld } from '../shared/smart-money/held-merges.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

/**
 * A full statistics run holds the positions' merges while it writes its slices: inside the
 * hold a table's parts are not merged (OPTIMIZE is refused), and after it they are, whether
 * the work ended well or threw.
 */
describe('withMergesHeld', () => {
  let rt: TestRuntime
  let table: string
  beforeAll(async () => {
    rt = await createTestRuntime()
    table = `${rt.tables.database}.held_merges_probe`
    await rt.clickhouse.command({ query: `CREATE TABLE ${table} (n UInt32) ENGINE = MergeTree ORDER BY n` })
  }, 60_000)
  afterAll(async () => rt?.cleanup())

  const twoParts = async () => {
    for (const n of [1, 2]) await rt.clickhouse.command({ query: `INSERT INTO ${table} VALUES ({n: UInt32})`, query_params: { n } })
  }
  const merge = () => rt.clickhouse.command({ query: `OPTIMIZE TABLE ${table} FINAL` })
  const activeParts = async () => {
    const [row] = await queryRows<{ parts: string }>(
      rt.clickhouse,
      `SELECT count() AS parts FROM system.parts WHERE database = {db: String} AND table = 'held_merges_probe' AND active`,
      { db: rt.tables.database },
    )
    return Number(row?.parts)
  }

  it('merges nothing inside, and merges again after the work', async () => {
    await twoParts()
    const inside = await withMergesHeld(rt.clickhouse, [table], async () => {
      await expect(merge()).rejects.toThrow()
      return activeParts()
    })
    expect(inside).toBeGreaterThanOrEqual(2)
    await merge()
    expect(await activeParts()).toBe(1)
  })

  it('releases the hold when the work throws', async () => {
    await twoParts()
    await expect(withMergesHeld(rt.clickhouse, [table], async () => Promise.reject(new Error('slice failed')))).rejects.toThrow('slice failed')
    await merge()
    expect(await activeParts()).toBe(1)
  })

  it('goes on without a hold where the server refuses one, and says which table', async () => {
    const refused: string[] = []
    // chDB refuses a hold only on a database it lacks (a missing table or a Memory one it holds
    // silently); a server also refuses one without the SYSTEM privilege.
    const missing = `${rt.tables.database}_missing.positions`
    const result = await withMergesHeld(rt.clickhouse, [missing, table], async () => 'done', (t, err) => refused.push(`${t}: ${String(err)}`))
    expect(result).toBe('done')
    expect(refused).toHaveLength(1)
    expect(refused[0]).toMatch(new RegExp(`^${missing}: .*${rt.tables.database}_missing`))
  })
})
