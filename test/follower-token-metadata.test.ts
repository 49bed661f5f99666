import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Address } from 'viem'
import { startAnvil, type AnvilChain } from '../devnet/anvil-process.js'
import { devnetClient } from '../devnet/chain-client.js'
import { bytes32Text, constantAnswerer, METADATA_SELECTORS as S } from '../devnet/raw-contracts.js'
import { ChainRpc } from '../follower/chain-rpc.js'
import { TokenMetadataReader } from '../follower/token-metadata.js'
import { createLogger } from '../shared/platform/logger.js'
import { tokenRecord } from '../shared/records/records.js'
import { freePort } from './support/follower-harness.js'

/** ERC-20 metadata read from contracts on anvil, including the misbehaving kinds. */
let chain: AnvilChain
let reader: TokenMetadataReader

const MKR_LIKE = '0x00000000000000000000000000000000000a0001' as Address
const NO_DECIMALS = '0x00000000000000000000000000000000000a0002' as Address
const STANDARD = '0x00000000000000000000000000000000000a0003' as Address
const NOTHING = '0x00000000000000000000000000000000000a0004' as Address

beforeAll(async () => {
  chain = await startAnvil({ port: await freePort() })
  const client = devnetClient(chain.url)
  await client.setCode({ address: MKR_LIKE, bytecode: constantAnswerer({ [S.name]: { word: bytes32Text('Maker') }, [S.symbol]: { word: bytes32Text('MKR') }, [S.decimals]: { word: '0x12' } }) })
  await client.setCode({ address: NO_DECIMALS, bytecode: constantAnswerer({ [S.name]: { string: 'No Decimals Token' }, [S.symbol]: { string: 'NODEC' } }) })
  await client.setCode({ address: STANDARD, bytecode: constantAnswerer({ [S.name]: { string: 'A rather long token name that spans two words' }, [S.symbol]: { string: 'LONG' }, [S.decimals]: { word: '0x06' } }) })
  await client.setCode({ address: NOTHING, bytecode: constantAnswerer({ [S.decimals]: { word: '0x08' } }) })
  reader = new TokenMetadataReader(new ChainRpc(chain.url, createLogger('silent')), 31337, createLogger('silent'))
})

afterAll(async () => {
  await chain?.stop()
})

describe('token metadata from contract calls', () => {
  it('reads a bytes32 name and symbol (as MKR has) as text', async () => {
    const { record, fallbacks } = await reader.read(MKR_LIKE)
    expect(record).toMatchObject({ name: 'Maker', symbol: 'MKR', decimals: 18 })
    expect(fallbacks).toContain('symbol() returned bytes32')
    expect(tokenRecord.safeParse(record).success).toBe(true)
  })

  it('reads ABI strings of any length', async () => {
    const { record, fallbacks } = await reader.read(STANDARD)
    expect(record).toMatchObject({ name: 'A rather long token name that spans two words', symbol: 'LONG', decimals: 6 })
    expect(fallbacks).toEqual([])
  })

  it('gives no token record when decimals() reverts (amounts stay raw), and says so', async () => {
    const { record, fallbacks } = await reader.read(NO_DECIMALS)
    expect(record).toBeUndefined()
    expect(fallbacks.join()).toMatch(/decimals\(\) unreadable/)
  })

  it('lets the address stand in when name() and symbol() both revert', async () => {
    const { record } = await reader.read(NOTHING)
    expect(record).toMatchObject({ name: NOTHING, decimals: 8 })
    expect(tokenRecord.safeParse(record).success).toBe(true)
  })
})
