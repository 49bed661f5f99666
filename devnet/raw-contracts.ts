import type { Hex } from 'viem'

/**
 * Runtime bytecode, assembled by hand (no compiler here), of contracts that answer fixed
 * 32-byte words or ABI strings to given selectors and revert on anything else: tokens
 * whose metadata calls misbehave the way some real ones do (a bytes32 `symbol()` like
 * MKR's, a missing `decimals()`), installed with anvil_setCode.
 */
export type Answer = { word: Hex } | { string: string }

export function constantAnswerer(answers: Record<Hex, Answer>): Hex {
  const entries = Object.entries(answers) as Array<[Hex, Answer]>
  const bodies = entries.map(([, a]) => body(a))
  // Dispatcher: selector = calldata[0:4]; for each: DUP1 PUSH4 sel EQ PUSH2 dest JUMPI; then revert.
  const header = '600035' + '60e01c'
  const dispatchLen = header.length / 2 + entries.length * (1 + 5 + 1 + 3 + 1) + 4
  let offset = dispatchLen
  let code = header
  const dests: number[] = []
  for (const b of bodies) {
    dests.push(offset)
    offset += b.length / 2
  }
  entries.forEach(([selector], i) => {
    code += '80' + '63' + selector.slice(2).padStart(8, '0') + '14' + '61' + dests[i]!.toString(16).padStart(4, '0') + '57'
  })
  code += '6000' + '80' + 'fd'
  return `0x${code}${bodies.join('')}` as Hex
}

/** JUMPDEST, the answer's words stored from memory 0, RETURN them. */
function body(answer: Answer): string {
  const words: string[] = []
  if ('word' in answer) words.push(answer.word.slice(2).padStart(64, '0'))
  else {
    const bytes = Buffer.from(answer.string, 'utf8')
    words.push((32).toString(16).padStart(64, '0'), bytes.length.toString(16).padStart(64, '0'))
    const hex = bytes.toString('hex')
    for (let i = 0; i < Math.max(1, Math.ceil(hex.length / 64)); i++) words.push(hex.slice(i * 64, (i + 1) * 64).padEnd(64, '0'))
  }
  let code = '5b'
  words.forEach((w, i) => {
    code += '7f' + w + '61' + (i * 32).toString(16).padStart(4, '0') + '52'
  })
  code += '61' + (words.length * 32).toString(16).padStart(4, '0') + '6000' + 'f3'
  return code
}

export function bytes32Text(text: string): Hex {
  return `0x${Buffer.from(text, 'utf8').toString('hex').padEnd(64, '0')}` as Hex
}

export const METADATA_SELECTORS = { name: '0x06fdde03', symbol: '0x95d89b41', decimals: '0x313ce567' } as const
