import { encodeDeployData, encodeFunctionData, maxUint256, zeroAddress, type Address, type Hex } from 'viem'
import { artifact, type ArtifactName } from './artifacts.js'
import { rpcBatch, sendBatch, type DevnetClient, type TxRequest } from './chain-client.js'
import { POOL_SIDE_USD, rawAmount, STABLE_POOL_SIDE_USD, sqrtPriceX96, STABLECOINS, testTokens, WETH_PRICE_USD, type TokenSpec } from './market.js'

export interface DeployedToken extends TokenSpec {
  address: Address
}

export interface DevnetPool {
  dex: 'uniswap-v2' | 'uniswap-v3'
  tokenA: Address
  tokenB: Address
}

/** Everything the devnet deployed: what the traders, the follower and the tests need. */
export interface DevnetDeployment {
  chainId: number
  deployer: Address
  weth: DeployedToken
  stablecoins: DeployedToken[]
  tokens: DeployedToken[]
  v2Factory: Address
  v2Router: Address
  v3Factory: Address
  v3Router: Address
  positionManager: Address
  pools: DevnetPool[]
  /** Block of the first factory: where a follower's history starts. */
  startBlock: number
}

const DEPLOY_GAS = 12_000_000n
const CALL_GAS = 1_000_000n
const V3_FEE = 3000
// Full range for a 0.3% pool (tick spacing 60).
const MIN_TICK = -887_220
const MAX_TICK = 887_220
/** OpenZeppelin 3.4's ERC20 keeps `uint8 _decimals` in storage slot 5. */
const DECIMALS_SLOT = '0x0000000000000000000000000000000000000000000000000000000000000005'

/**
 * Sends transactions in chunks, mining each chunk into its own block, and returns the
 * receipts (all must succeed). Chunks: anvil 1.7 silently dropped the rest of a large
 * batch of heavy transactions (pool creations) from its pool when mining.
 */
interface RawReceipt {
  status: Hex
  contractAddress: Address | null
  transactionHash: Hex
}

export async function executeBatch(client: DevnetClient, url: string, txs: readonly TxRequest[], chunk = 8): Promise<RawReceipt[]> {
  const receipts: RawReceipt[] = []
  for (let i = 0; i < txs.length; i += chunk) {
    const part = txs.slice(i, i + chunk)
    const hashes = await sendBatch(url, part)
    await client.mine({ blocks: 1 })
    const found = await rpcBatch<RawReceipt | null>(url, hashes.map((hash) => ({ method: 'eth_getTransactionReceipt', params: [hash] })))
    for (const [j, hash] of hashes.entries()) {
      const receipt = found[j]
      if (!receipt) throw new Error(`devnet transaction ${hash} (${part[j]!.data.slice(0, 10)}) was not mined`)
      if (receipt.status !== '0x1') throw new Error(`devnet transaction ${hash} (${part[j]!.data.slice(0, 10)}) reverted`)
      receipts.push(receipt)
    }
  }
  return receipts
}

function deployTx(from: Address, name: ArtifactName, args: readonly unknown[] = []): TxRequest {
  const { abi, bytecode } = artifact(name)
  return { from, to: null as unknown as Address, data: encodeDeployData({ abi, bytecode, args }), gas: DEPLOY_GAS }
}

export function callTx(from: Address, to: Address, name: ArtifactName, functionName: string, args: readonly unknown[], value?: bigint, gas = CALL_GAS): TxRequest {
  const data = encodeFunctionData({ abi: artifact(name).abi, functionName, args } as never)
  return { from, to, data, gas, ...(value !== undefined ? { value } : {}) }
}

/**
 * Deploys WETH9, USDC/USDT (6 decimals)/DAI, `tokenCount` test tokens, the Uniswap V2
 * factory and router, the V3 factory, SwapRouter and NonfungiblePositionManager, and pools
 * with liquidity: every token against WETH on V2 and on V3, the stablecoins against WETH
 * on both, USDC/DAI on V2, and every third token against USDC on V2.
 */
export async function deployDevnet(client: DevnetClient, url: string, tokenCount = 24): Promise<DevnetDeployment> {
  const [deployer] = await client.getAddresses()
  if (!deployer) throw new Error('anvil has no unlocked account')
  await client.setAutomine(false)
  const startBlock = Number(await client.getBlockNumber()) + 1

  const specs = [...STABLECOINS, ...testTokens(tokenCount)]
  const supply = (spec: TokenSpec) => rawAmount(STABLE_POOL_SIDE_USD * 100, { decimals: 18, priceUsd: spec.priceUsd })
  const first = await executeBatch(client, url, [
    deployTx(deployer, 'WETH9'),
    deployTx(deployer, 'UniswapV2Factory', [deployer]),
    deployTx(deployer, 'UniswapV3Factory'),
    ...specs.map((s) => deployTx(deployer, 'ERC20PresetFixedSupply', [s.name, s.symbol, supply(s), deployer])),
  ])
  const addressAt = (i: number) => first[i]!.contractAddress!
  const wethAddress = addressAt(0)
  const v2Factory = addressAt(1)
  const v3Factory = addressAt(2)
  const deployed: DeployedToken[] = specs.map((s, i) => ({ ...s, address: addressAt(3 + i) }))
  for (const token of deployed) {
    if (token.decimals !== 18) {
      await client.setStorageAt({ address: token.address, index: DECIMALS_SLOT, value: `0x${token.decimals.toString(16).padStart(64, '0')}` })
    }
  }

  const second = await executeBatch(client, url, [
    deployTx(deployer, 'UniswapV2Router02', [v2Factory, wethAddress]),
    deployTx(deployer, 'SwapRouter', [v3Factory, wethAddress]),
    deployTx(deployer, 'NonfungiblePositionManager', [v3Factory, wethAddress, zeroAddress]),
  ])
  const v2Router = second[0]!.contractAddress!
  const v3Router = second[1]!.contractAddress!
  const positionManager = second[2]!.contractAddress!

  const weth: DeployedToken = { name: 'Wrapped Ether', symbol: 'WETH', decimals: 18, priceUsd: WETH_PRICE_USD, address: wethAddress }
  const stablecoins = deployed.slice(0, STABLECOINS.length)
  const tokens = deployed.slice(STABLECOINS.length)
  const pools: DevnetPool[] = []
  for (const t of [...stablecoins, ...tokens]) {
    pools.push({ dex: 'uniswap-v2', tokenA: weth.address, tokenB: t.address }, { dex: 'uniswap-v3', tokenA: weth.address, tokenB: t.address })
  }
  pools.push({ dex: 'uniswap-v2', tokenA: stablecoins[0]!.address, tokenB: stablecoins[2]!.address })
  tokens.forEach((t, i) => {
    if (i % 3 === 0) pools.push({ dex: 'uniswap-v2', tokenA: stablecoins[0]!.address, tokenB: t.address })
  })

  const stableAddresses = new Set(stablecoins.map((s) => s.address))
  const sideUsd = (pool: DevnetPool) => (stableAddresses.has(pool.tokenB) && (pool.tokenA === weth.address || stableAddresses.has(pool.tokenA)) ? STABLE_POOL_SIDE_USD : POOL_SIDE_USD)
  const wethNeeded = pools.reduce((sum, pool) => sum + rawAmount(sideUsd(pool), weth), 0n) * 2n
  const approvals: TxRequest[] = [callTx(deployer, weth.address, 'WETH9', 'deposit', [], wethNeeded, 100_000n)]
  for (const t of [weth, ...deployed]) {
    approvals.push(callTx(deployer, t.address, 'ERC20PresetFixedSupply', 'approve', [v2Router, maxUint256], undefined, 100_000n))
    approvals.push(callTx(deployer, t.address, 'ERC20PresetFixedSupply', 'approve', [positionManager, maxUint256], undefined, 100_000n))
  }
  await executeBatch(client, url, approvals)

  const byAddress = new Map([weth, ...deployed].map((t) => [t.address, t]))
  const deadline = 2n ** 40n
  const liquidity: TxRequest[] = []
  for (const pool of pools) {
    const a = byAddress.get(pool.tokenA)!
    const b = byAddress.get(pool.tokenB)!
    const amountA = rawAmount(sideUsd(pool), a)
    const amountB = rawAmount(sideUsd(pool), b)
    if (pool.dex === 'uniswap-v2') {
      liquidity.push(callTx(deployer, v2Router, 'UniswapV2Router02', 'addLiquidity', [a.address, b.address, amountA, amountB, 0n, 0n, deployer, deadline], undefined, 5_000_000n))
      continue
    }
    const [t0, t1, amount0, amount1] = a.address.toLowerCase() < b.address.toLowerCase() ? [a, b, amountA, amountB] : [b, a, amountB, amountA]
    liquidity.push(
      callTx(deployer, positionManager, 'NonfungiblePositionManager', 'createAndInitializePoolIfNecessary', [t0.address, t1.address, V3_FEE, sqrtPriceX96(amount0, amount1)], undefined, 6_000_000n),
      callTx(deployer, positionManager, 'NonfungiblePositionManager', 'mint', [
        { token0: t0.address, token1: t1.address, fee: V3_FEE, tickLower: MIN_TICK, tickUpper: MAX_TICK, amount0Desired: amount0, amount1Desired: amount1, amount0Min: 0n, amount1Min: 0n, recipient: deployer, deadline },
      ], undefined, 1_000_000n),
    )
  }
  await executeBatch(client, url, liquidity)

  return {
    chainId: await client.getChainId(),
    deployer,
    weth,
    stablecoins,
    tokens,
    v2Factory,
    v2Router,
    v3Factory,
    v3Router,
    positionManager,
    pools,
    startBlock,
  }
}
