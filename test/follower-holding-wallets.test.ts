import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../shared/platform/config.js'
import { HoldingWallets } from '../follower/holding-wallets.js'

/** Whose holdings the follower reads (FOLLOW_HOLDINGS): every wallet seen, the tracked-wallets file's, or none. */
const dir = mkdtempSync(join(tmpdir(), 'holding-wallets-'))
const A = '0x00000000000000000000000000000000000000aa'
const B = '0x00000000000000000000000000000000000000bb'
const T = '0x00000000000000000000000000000000000000cc'
const U = '0x00000000000000000000000000000000000000dd'

afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('holding wallets', () => {
  it('all (the default): every traded pair once; off: none', async () => {
    const config = loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379' })
    expect(config.follower.holdings).toEqual({ wallets: 'all', trackedWalletsFile: null })
    const all = new HoldingWallets('all', null)
    expect(await all.select([[A, T], [B, T], [A, T], [A, U]])).toEqual([[A, T], [B, T], [A, U]])
    expect(await new HoldingWallets('off', null).select([[A, T]])).toEqual([])
  })

  it('listed: only the wallets of TRACKED_WALLETS_FILE, following edits of the file', async () => {
    const file = join(dir, 'tracked.txt')
    writeFileSync(file, `# tracked\n${A.toUpperCase().replace('0X', '0x')} Fund A\n`)
    const config = loadConfig({ FOLLOW_HOLDINGS: 'listed', TRACKED_WALLETS_FILE: file })
    expect(config.follower.holdings).toEqual({ wallets: 'listed', trackedWalletsFile: file })
    const listed = new HoldingWallets(config.follower.holdings.wallets, config.follower.holdings.trackedWalletsFile)
    expect(await listed.select([[A, T], [B, T], [B, U]])).toEqual([[A, T]])
    writeFileSync(file, `${A}\n${B} Fund B, a longer line than before\n`)
    expect(await listed.select([[A, T], [B, T], [B, U]])).toEqual([[A, T], [B, T], [B, U]])
  })

  it('listed without a file is refused at start-up', () => {
    expect(() => loadConfig({ FOLLOW_HOLDINGS: 'listed' })).toThrow(ConfigError)
    expect(() => loadConfig({ FOLLOW_HOLDINGS: 'listed' })).toThrow(/FOLLOW_HOLDINGS: listed needs TRACKED_WALLETS_FILE/)
    expect(() => loadConfig({ FOLLOW_HOLDINGS: 'some' })).toThrow(ConfigError)
  })
})
