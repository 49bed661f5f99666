import { concat, encodeFunctionData, maxUint256, numberToHex, type Address, type Hex } from 'viem'
import { artifact } from './artifacts.js'
import { rpcBatch, sendBatch, type DevnetClient, type TxRequest } from './chain-client.js'
import { callTx, executeBatch, type DeployedToken, type DevnetDeployment } from './deploy-devnet.js'
import { rawAmount } from './market.js'

/**
 * Wallets trading on the devnet through the real routers: V2 and V3, single pool and
 * multi-hop (token → WETH → USDC). Strategies: `noise` trades at random; `early` buys the
 * token a whale is about to pump and sells it after the pump (profitable by design); `late`
 * buys it right after the pump and sells it after the early wallets did (unprofitable by
 * design). Early and late wallets pay with USDC they were sent and sell for DAI, through
 * WETH on V2: their only positions with a cost basis are the pumped tokens, and each of
 * their trades is valued by its stablecoin leg, which its receipt shows.
 */
export type Strategy = 'noise' | 'early' | 'late'

export interface Trader {
  address: Address
  strategy: Strategy
  /** The tokens besides WETH and USDC this wallet trades (approved on both routers). */
  tokens: DeployedToken[]
}

const SWAP_GAS = 400_000n
const V3_FEE = 3000
const DEADLINE = 2n ** 40n

/** A deterministic generator (mulberry32): the same trades on every run for a seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}

/** What an early or late wallet pays for each pumped token, in USD (USDC). */
export const STAKE_USD = 20_000

/** Funds and approves `wallets`: WETH, USDC and a few tokens each ("early"/"late" wallets: more USDC, and every token approved on V2). */
export async function setupTraders(client: DevnetClient, url: string, d: DevnetDeployment, wallets: readonly Address[]): Promise<Trader[]> {
  const usdc = d.stablecoins[0]!
  const traders: Trader[] = wallets.map((address, i) => {
    const strategy: Strategy = i % 10 === 1 ? 'early' : i % 10 === 2 ? 'late' : 'noise'
    const tokens = strategy === 'noise' ? [0, 1, 2].map((k) => d.tokens[(i * 3 + k) % d.tokens.length]!) : d.tokens
    return { address, strategy, tokens }
  })
  const txs: TxRequest[] = []
  for (const t of traders) {
    txs.push(callTx(t.address, d.weth.address, 'WETH9', 'deposit', [], rawAmount(300_000, d.weth), 100_000n))
    const usdcFunds = t.strategy === 'noise' ? 300_000 : 50 * STAKE_USD
    txs.push(callTx(d.deployer, usdc.address, 'ERC20PresetFixedSupply', 'transfer', [t.address, rawAmount(usdcFunds, usdc)], undefined, 100_000n))
    // "early" and "late" wallets only buy with USDC and sell what they bought, on V2.
    const routers = t.strategy === 'noise' ? [d.v2Router, d.v3Router] : [d.v2Router]
    for (const token of [d.weth, usdc, ...t.tokens]) {
      if (token !== d.weth && token !== usdc && t.strategy === 'noise') {
        txs.push(callTx(d.deployer, token.address, 'ERC20PresetFixedSupply', 'transfer', [t.address, rawAmount(100_000, token)], undefined, 100_000n))
      }
      for (const router of routers) {
        txs.push(callTx(t.address, token.address, 'ERC20PresetFixedSupply', 'approve', [router, maxUint256], undefined, 100_000n))
      }
    }
  }
  await executeBatch(client, url, txs, 500)
  return traders
}

export type TradeRoute = 'v2-single' | 'v2-multi' | 'v3-single' | 'v3-multi'

/** One swap through a router: exact input of `amountIn` raw units along `path` (2 or 3 tokens). */
export function tradeTx(d: DevnetDeployment, from: Address, route: TradeRoute, path: readonly DeployedToken[], amountIn: bigint): TxRequest {
  if (route.startsWith('v2')) {
    const data = encodeFunctionData({
      abi: artifact('UniswapV2Router02').abi,
      functionName: 'swapExactTokensForTokens',
      args: [amountIn, 0n, path.map((t) => t.address), from, DEADLINE],
    } as never)
    return { from, to: d.v2Router, data, gas: SWAP_GAS }
  }
  const abi = artifact('SwapRouter').abi
  if (path.length === 2) {
    const data = encodeFunctionData({
      abi,
      functionName: 'exactInputSingle',
      args: [{ tokenIn: path[0]!.address, tokenOut: path[1]!.address, fee: V3_FEE, recipient: from, deadline: DEADLINE, amountIn, amountOutMinimum: 0n, sqrtPriceLimitX96: 0n }],
    } as never)
    return { from, to: d.v3Router, data, gas: SWAP_GAS }
  }
  const encodedPath: Hex = concat(path.flatMap((t, i) => (i === 0 ? [t.address] : [numberToHex(V3_FEE, { size: 3 }), t.address])))
  const data = encodeFunctionData({
    abi,
    functionName: 'exactInput',
    args: [{ path: encodedPath, recipient: from, deadline: DEADLINE, amountIn, amountOutMinimum: 0n }],
  } as never)
  return { from, to: d.v3Router, data, gas: SWAP_GAS }
}

/** A random trade of a noise wallet: one of its tokens against WETH, or via WETH against USDC. */
function noiseTrade(d: DevnetDeployment, t: Trader, random: () => number): TxRequest {
  const token = t.tokens[Math.floor(random() * t.tokens.length)]!
  const usdc = d.stablecoins[0]!
  const route: TradeRoute = (['v2-single', 'v2-multi', 'v3-single', 'v3-multi'] as const)[Math.floor(random() * 4)]!
  const multi = route.endsWith('multi')
  const sell = random() < 0.5
  const ends = multi ? [token, d.weth, usdc] : [token, d.weth]
  const path = sell ? ends : [...ends].reverse()
  const usd = 100 + random() * 4_900
  return tradeTx(d, t.address, route, path, rawAmount(usd, path[0]!))
}

const BALANCE_OF = artifact('ERC20PresetFixedSupply').abi

/** Raw balances of `owner` in `token`, one eth_call each, in one batch (latest block). */
async function balancesOf(url: string, queries: ReadonlyArray<{ owner: Address; token: DeployedToken }>): Promise<bigint[]> {
  const calls = queries.map((q) => ({
    method: 'eth_call',
    params: [{ to: q.token.address, data: encodeFunctionData({ abi: BALANCE_OF, functionName: 'balanceOf', args: [q.owner] } as never) }, 'latest'],
  }))
  return (await rpcBatch<Hex>(url, calls)).map((r) => BigInt(r))
}

/**
 * Round `round` of trading: most wallets make a random trade; every 10 rounds the deployer
 * (a whale) pumps one token (phase 9). The "early" wallets buy it the round before (phase 8)
 * and sell all of it two rounds after (phase 1); the "late" ones buy it the round after
 * (phase 0) and sell all of it once the early ones have (phase 2). Sends the round's
 * transactions in one batch (mining is up to the caller or anvil's block time); the sells
 * read the sellers' balances at the latest block, so the rounds before must be mined.
 */
export async function tradeRound(url: string, d: DevnetDeployment, traders: readonly Trader[], round: number, random: () => number, share = 0.5): Promise<Hex[]> {
  const phase = round % 10
  const tokenOf = (r: number) => d.tokens[Math.floor(r / 10) % d.tokens.length]!
  const target = tokenOf(round)
  const [usdc, dai] = [d.stablecoins[0]!, d.stablecoins[2]!]
  const buy = (t: Trader, token: DeployedToken) => tradeTx(d, t.address, 'v2-multi', [usdc, d.weth, token], rawAmount(STAKE_USD, usdc))
  const sellers: Array<{ owner: Address; token: DeployedToken }> = []
  const txs: TxRequest[] = []
  for (const t of traders) {
    if (t.strategy === 'early' && phase === 8) txs.push(buy(t, target))
    else if (t.strategy === 'early' && phase === 1 && round > 10) sellers.push({ owner: t.address, token: tokenOf(round - 2) })
    else if (t.strategy === 'late' && phase === 0 && round > 0) txs.push(buy(t, tokenOf(round - 1)))
    else if (t.strategy === 'late' && phase === 2 && round > 10) sellers.push({ owner: t.address, token: tokenOf(round - 3) })
    else if (t.strategy === 'noise' && random() < share) txs.push(noiseTrade(d, t, random))
  }
  const balances = await balancesOf(url, sellers)
  sellers.forEach((s, i) => {
    if (balances[i]! > 0n) txs.push(tradeTx(d, s.owner, 'v2-multi', [s.token, d.weth, dai], balances[i]!))
  })
  if (phase === 9) txs.push(tradeTx(d, d.deployer, 'v2-single', [d.weth, target], rawAmount(1_000_000, d.weth)))
  return sendBatch(url, txs)
}
