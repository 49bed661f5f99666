import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { TrackedWalletsFile } from '../shared/smart-money/tracked-wallets-file.js'
import { addressFor } from './support/factories.js'

/** The tracked-wallets file as its readers see it: one object per reading, a new one after an edit (GET /wallets keys its kept set on it). */
describe('the tracked-wallets file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tracked-file-'))
  const path = join(dir, 'wallets.txt')
  const [ann, ben] = [addressFor('file-ann'), addressFor('file-ben')]
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('returns the same reading until the file changes, then the new one', async () => {
    writeFileSync(path, `${ann} Ann\n`)
    const file = new TrackedWalletsFile(path)
    const first = await file.current()
    expect([...first.wallets]).toEqual([[ann, 'Ann']])
    expect(await file.current()).toBe(first)
    writeFileSync(path, `${ann} Ann\n${ben}\n`)
    const edited = await file.current()
    expect(edited).not.toBe(first)
    expect([...edited.wallets]).toEqual([[ann, 'Ann'], [ben, null]])
  })

  it('an unreadable file is one reading with its problem until it can be read again', async () => {
    const file = new TrackedWalletsFile(path)
    await file.current()
    unlinkSync(path)
    const missing = await file.current()
    expect(missing.wallets.size).toBe(0)
    expect(missing.problems).toEqual([{ line: 0, reason: 'the file cannot be read: ENOENT' }])
    expect(await file.current()).toBe(missing)
    writeFileSync(path, `${ben}\n`)
    expect([...(await file.current()).wallets.keys()]).toEqual([ben])
  })

  it('no file configured: no wallets, no problems', async () => {
    expect(await new TrackedWalletsFile(null).current()).toEqual({ wallets: new Map(), problems: [] })
  })
})
