import { parseAbi, type Address } from 'viem'
import type { DeployedToken } from '../../devnet/deploy-devnet.js'
import type { Devnet } from '../../devnet/devnet.js'

const V2_FACTORY = parseAbi(['function getPair(address, address) view returns (address)'])
const V2_PAIR = parseAbi(['function getReserves() view returns (uint112, uint112, uint32)'])
const V3_FACTORY = parseAbi(['function getPool(address, address, uint24) view returns (address)'])
const V3_POOL = parseAbi(['function slot0() view returns (uint160, int24, uint16, uint16, uint16, uint8, bool)'])

/**
 * What one `token` is worth in `anchor` in a devnet pool at the end of `block`, read from
 * the pool's own state (V2 reserves, V3 sqrt price), independently of the follower.
 */
export async function poolPrice(devnet: Devnet, dex: 'v2' | 'v3', token: DeployedToken, anchor: DeployedToken, block: bigint): Promise<number> {
  const d = devnet.deployment
  const client = devnet.client
  const tokenIs0 = token.address.toLowerCase() < anchor.address.toLowerCase()
  const scale = 10 ** (token.decimals - anchor.decimals)
  if (dex === 'v2') {
    const pair = await client.readContract({ address: d.v2Factory, abi: V2_FACTORY, functionName: 'getPair', args: [token.address, anchor.address] })
    const [r0, r1] = await client.readContract({ address: pair as Address, abi: V2_PAIR, functionName: 'getReserves', blockNumber: block })
    const [tokenReserve, anchorReserve] = tokenIs0 ? [r0, r1] : [r1, r0]
    return (Number(anchorReserve) / Number(tokenReserve)) * scale
  }
  const pool = await client.readContract({ address: d.v3Factory, abi: V3_FACTORY, functionName: 'getPool', args: [token.address, anchor.address, 3000] })
  const [sqrtPriceX96] = await client.readContract({ address: pool as Address, abi: V3_POOL, functionName: 'slot0', blockNumber: block })
  const price1Per0 = (Number(sqrtPriceX96) / 2 ** 96) ** 2
  return (tokenIs0 ? price1Per0 : 1 / price1Per0) * scale
}
