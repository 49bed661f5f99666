/**
 * Stable identifiers. A token's id, when no producer supplied one, is its lower-case
 * contract address; a holding's id is derived from its wallet and token, so
 * re-ingesting the same holding keeps its id and the id locates the row by its key.
 */

export function deriveTokenId(contractAddress: string): string {
  return contractAddress.toLowerCase()
}

const HOLDING_ID = /^(0x[0-9a-f]{40})-(0x[0-9a-f]{40})$/

export function holdingId(walletAddress: string, contractAddress: string): string {
  return `${walletAddress.toLowerCase()}-${contractAddress.toLowerCase()}`
}

export function parseHoldingId(id: string): { walletAddress: string; contractAddress: string } | null {
  const match = HOLDING_ID.exec(id.toLowerCase())
  if (!match) return null
  return { walletAddress: match[1]!, contractAddress: match[2]! }
}
