import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Abi, Hex } from 'viem'

/** Compiled contracts from their npm packages: the real Uniswap V2/V3 builds, WETH9, OpenZeppelin's ERC-20. */
export interface Artifact {
  abi: Abi
  bytecode: Hex
}

const PATHS = {
  UniswapV2Factory: '@uniswap/v2-core/build/UniswapV2Factory.json',
  UniswapV2Pair: '@uniswap/v2-core/build/UniswapV2Pair.json',
  UniswapV2Router02: '@uniswap/v2-periphery/build/UniswapV2Router02.json',
  WETH9: '@uniswap/v2-periphery/build/WETH9.json',
  UniswapV3Factory: '@uniswap/v3-core/artifacts/contracts/UniswapV3Factory.sol/UniswapV3Factory.json',
  UniswapV3Pool: '@uniswap/v3-core/artifacts/contracts/UniswapV3Pool.sol/UniswapV3Pool.json',
  SwapRouter: '@uniswap/v3-periphery/artifacts/contracts/SwapRouter.sol/SwapRouter.json',
  NonfungiblePositionManager:
    '@uniswap/v3-periphery/artifacts/contracts/NonfungiblePositionManager.sol/NonfungiblePositionManager.json',
  ERC20PresetFixedSupply: '@openzeppelin/contracts/build/contracts/ERC20PresetFixedSupply.json',
} as const

export type ArtifactName = keyof typeof PATHS

const cache = new Map<ArtifactName, Artifact>()

export function artifact(name: ArtifactName): Artifact {
  const hit = cache.get(name)
  if (hit) return hit
  const require = createRequire(import.meta.url)
  const json = JSON.parse(readFileSync(require.resolve(PATHS[name]), 'utf8')) as { abi: Abi; bytecode: string }
  const bytecode = (json.bytecode.startsWith('0x') ? json.bytecode : `0x${json.bytecode}`) as Hex
  const loaded = { abi: json.abi, bytecode }
  cache.set(name, loaded)
  return loaded
}
