/**
 * The events the follower reads, decoded straight from the log's hex (topics and 32-byte
 * data words): at 10,000 logs a second, ABI decoding was the follower's first cost.
 */
export const TOPICS = {
  v2Swap: '0xd78ad95fa46c994b6551d0da85fc275fe613ce37657fb8d5e3d130840159d822',
  v3Swap: '0xc42079f94a6350d7e6235f29174924f928cc2ac818eb64fed8004e115fbcca67',
  v2Sync: '0x1c411e9a96e071241c2f21f7726b17ae89e3cab4c78be50e062b03a9fffbbad1',
  pairCreated: '0x0d3648bd0f6ba80134a33ba9275ac585d9d315f0ad8355cddefde31afa28d0e9',
  poolCreated: '0x783cca1c0412dd0d695e784568c96da2e9c22ff989357a2e8b1d9b2b4e6b7118',
} as const

export const FOLLOWED_TOPICS = Object.values(TOPICS)

/** A log as eth_getLogs returns it (hex strings). */
export interface RawLog {
  address: string
  topics: string[]
  data: string
  blockNumber: string
  blockHash: string
  transactionHash: string
  transactionIndex: string
  logIndex: string
  removed?: boolean
  /** Some nodes add the block's time (hex seconds). */
  blockTimestamp?: string
}

const TWO_255 = 1n << 255n
const TWO_256 = 1n << 256n

function word(data: string, i: number): bigint {
  return BigInt(`0x${data.slice(2 + i * 64, 2 + (i + 1) * 64)}`)
}

function signedWord(data: string, i: number): bigint {
  const v = word(data, i)
  return v >= TWO_255 ? v - TWO_256 : v
}

function topicAddress(topic: string): string {
  return `0x${topic.slice(26)}`.toLowerCase()
}

function wordAddress(data: string, i: number): string {
  return `0x${data.slice(2 + i * 64 + 24, 2 + (i + 1) * 64)}`.toLowerCase()
}

/** What a pool paid out (positive) or took in (negative) of each token, from the trader's side. */
/** Numbers of the blocks holding a V2 or V3 Swap log (whose senders a step needs), ascending. */
export function swapLogBlocks(logs: readonly RawLog[]): number[] {
  const blocks = new Set<number>()
  for (const l of logs) if (l.topics[0] === TOPICS.v2Swap || l.topics[0] === TOPICS.v3Swap) blocks.add(Number(l.blockNumber))
  return [...blocks].sort((a, b) => a - b)
}

export interface PoolDelta {
  pool: string
  /** Received by the trader (negative: paid). */
  delta0: bigint
  delta1: bigint
}

export function decodeV2Swap(log: RawLog): PoolDelta {
  const in0 = word(log.data, 0)
  const in1 = word(log.data, 1)
  const out0 = word(log.data, 2)
  const out1 = word(log.data, 3)
  return { pool: log.address.toLowerCase(), delta0: out0 - in0, delta1: out1 - in1 }
}

export interface V3SwapState {
  sqrtPriceX96: bigint
  liquidity: bigint
}

export function decodeV3Swap(log: RawLog): PoolDelta & V3SwapState {
  // amount0/amount1 are the pool's side: positive = paid into the pool by the trader.
  return {
    pool: log.address.toLowerCase(),
    delta0: -signedWord(log.data, 0),
    delta1: -signedWord(log.data, 1),
    sqrtPriceX96: word(log.data, 2),
    liquidity: word(log.data, 3),
  }
}

export function decodeV2Sync(log: RawLog): { pool: string; reserve0: bigint; reserve1: bigint } {
  return { pool: log.address.toLowerCase(), reserve0: word(log.data, 0), reserve1: word(log.data, 1) }
}

export interface PoolCreation {
  factory: string
  pool: string
  token0: string
  token1: string
  dex: 'uniswap-v2' | 'uniswap-v3'
}

export function decodePairCreated(log: RawLog): PoolCreation {
  return {
    factory: log.address.toLowerCase(),
    pool: wordAddress(log.data, 0),
    token0: topicAddress(log.topics[1]!),
    token1: topicAddress(log.topics[2]!),
    dex: 'uniswap-v2',
  }
}

export function decodePoolCreated(log: RawLog): PoolCreation {
  return {
    factory: log.address.toLowerCase(),
    pool: wordAddress(log.data, 1),
    token0: topicAddress(log.topics[1]!),
    token1: topicAddress(log.topics[2]!),
    dex: 'uniswap-v3',
  }
}
