import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { openRuntime } from '../shared/bootstrap.js'
import { loadConfig } from '../shared/platform/config.js'
import { queryRows } from '../shared/storage/query-rows.js'
import { spawnTsx } from './support/backfill-files.js'
import { batchHashes } from './support/change-feed-batches.js'
import { testEnv } from './support/runtime.js'

/**
 * A process storing swaps is killed with SIGKILL again and again, mostly in the middle of
 * an insert; its unacknowledged batch is re-delivered, as the queue does. A consumer that
 * read the feed before and after each kill has seen a change for every swap stored, and no
 * change of a swap that is not stored. This process opens the store only after the last
 * child exited (one process per embedded data directory).
 */
/** Where in a batch's insert each kill lands, as a fraction of a batch's time: the second of its two inserts mostly. */
const KILL_POINTS = [0.55, 0.75, 0.95]
const dataDir = mkdtempSync(join(tmpdir(), 'change-feed-sigkill-'))
const seenFile = join(dataDir, 'seen.txt')
const env = testEnv({ CLICKHOUSE_PATH: dataDir, SEEN_FILE: seenFile })

afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

/**
 * Runs the writer: after it has acknowledged one batch (whose time tells how long a batch
 * takes), kills it `fraction` of that time into the next; the last batch acknowledged.
 */
async function writeThenKill(from: number, fraction: number): Promise<number> {
  const child = spawnTsx('test/support/change-feed-child.ts', ['write', String(from)], env)
  let acked = from - 1
  let batchMs = 0
  let output = ''
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()))
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()))
    child.stdout!.on('data', (d: Buffer) => {
      const text = d.toString()
      for (const match of text.matchAll(/acked (\d+) in (\d+) ms/g)) [acked, batchMs] = [Number(match[1]), Number(match[2])]
      if (acked >= from && text.includes(`storing ${acked + 1}`)) resolve()
    })
    child.on('exit', (code) => reject(new Error(`writer exited (${code}) before the kill: ${output}`)))
  })
  await new Promise((resolve) => setTimeout(resolve, batchMs * fraction))
  child.kill('SIGKILL')
  await exited
  return acked
}

async function recover(batch: number): Promise<number> {
  const child = spawnTsx('test/support/change-feed-child.ts', ['recover', String(batch)], env)
  let output = ''
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()))
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()))
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
  const match = /recovered (\d+)/.exec(output)
  if (code !== 0 || match === null) throw new Error(`recovery failed (${code}): ${output}`)
  return Number(match[1])
}

describe('the change feed under SIGKILL', () => {
  it('a consumer sees a change for every stored swap and none without its swap, across kills in the middle of inserts', { timeout: 180_000 }, async () => {
    writeFileSync(seenFile, '')
    let next = 0
    let storedWithoutChange = 0
    for (const fraction of KILL_POINTS) {
      const acked = await writeThenKill(next, fraction)
      // The batch after the last acknowledged one may be half stored: the queue delivers it again.
      storedWithoutChange += await recover(acked + 1)
      next = acked + 2
    }

    const rt = await openRuntime(loadConfig(env), 'test')
    try {
      const live = new Set((await queryRows<{ hash: string }>(rt.clickhouse, `SELECT hash FROM ${rt.tables.swaps} FINAL`)).map((r) => r.hash))
      const seen = new Set(readFileSync(seenFile, 'utf8').split('\n').filter(Boolean))
      // Every acknowledged or re-delivered batch is stored whole.
      for (let batch = 0; batch < next; batch++) for (const hash of batchHashes(batch)) expect(live.has(hash), hash).toBe(true)
      expect([...live].filter((hash) => !seen.has(hash))).toEqual([])
      expect([...seen].filter((hash) => !live.has(hash))).toEqual([])
      expect(live.size).toBe(next * batchHashes(0).length)
      // Reported, not asserted: how many rows the kills left stored before their change (the case this test is for).
      console.info(`change feed SIGKILL: ${KILL_POINTS.length} kills, ${storedWithoutChange} rows found stored without their change before re-delivery`)
    } finally {
      await rt.clickhouse.close()
    }
  })
})
