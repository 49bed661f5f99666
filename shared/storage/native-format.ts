import type { ClickHouseClient } from './clickhouse.js'

/**
 * A query's answer in ClickHouse's Native format (the query text without its FORMAT
 * clause; values as typed parameters, never spliced in), decoded into columns.
 *
 * Native is ClickHouse's own columnar layout: a column of numbers is its raw
 * little-endian values one after another, and an array column is its offsets then all its
 * elements, so ClickHouse writes it with a few copies and a column of a block is decoded
 * here with one copy into a typed array (each row's array a view of it). Row formats cost
 * ClickHouse a call per value (on the indicator histories, about three times Native's CPU).
 * @clickhouse/client decodes no binary format, so the query runs through `exec`.
 *
 * Decoded types: String, UInt32, Float64, Array(T), Tuple(T, ...) of those; another type
 * is an error naming it.
 */
export async function queryNative(
  clickhouse: ClickHouseClient,
  query: string,
  query_params: Record<string, unknown>,
): Promise<NativeBlock[]> {
  // On a server, wait_end_of_query makes an error during the query an HTTP error (the
  // client throws it) rather than text after the blocks of a 200 answer; chDB drops it.
  const { stream } = await clickhouse.exec({ query: `${query}\nFORMAT Native`, query_params, clickhouse_settings: { wait_end_of_query: 1 } })
  const chunks: Buffer[] = []
  for await (const chunk of stream) chunks.push(chunk as Buffer)
  return decodeNative(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks))
}

/** A decoded column. Arrays: row i's elements are items [ends[i - 1], ends[i]) (from 0 for the first row). */
export type NativeColumn =
  | { kind: 'String'; values: string[] }
  | { kind: 'UInt32'; values: Uint32Array }
  | { kind: 'Float64'; values: Float64Array }
  | { kind: 'Array'; ends: Float64Array; items: NativeColumn }
  | { kind: 'Tuple'; elements: NativeColumn[] }

/** One block of the answer: some rows, each column by name with its declared type. */
export class NativeBlock {
  constructor(
    readonly rows: number,
    private readonly columns: ReadonlyMap<string, { type: string; column: NativeColumn }>,
  ) {}

  /** The column `name`, checked to be of `type` (as ClickHouse names it, e.g. `Array(Float64)`). */
  column(name: string, type: string): NativeColumn {
    const found = this.columns.get(name)
    if (!found) throw new Error(`Native answer has no column ${name}`)
    if (found.type !== type) throw new Error(`Native column ${name} is ${found.type}, expected ${type}`)
    return found.column
  }

  strings(name: string): string[] {
    const c = this.column(name, 'String')
    if (c.kind !== 'String') throw new Error(`Native column ${name} did not decode as String`)
    return c.values
  }

  /** An Array(UInt32) column: each row's end, and every row's elements. */
  uint32Arrays(name: string): { ends: Float64Array; items: Uint32Array } {
    const c = this.column(name, 'Array(UInt32)')
    if (c.kind !== 'Array' || c.items.kind !== 'UInt32') throw new Error(`Native column ${name} did not decode as Array(UInt32)`)
    return { ends: c.ends, items: c.items.values }
  }

  /** An Array(Float64) column: each row's end, and every row's elements. */
  float64Arrays(name: string): { ends: Float64Array; items: Float64Array } {
    const c = this.column(name, 'Array(Float64)')
    if (c.kind !== 'Array' || c.items.kind !== 'Float64') throw new Error(`Native column ${name} did not decode as Array(Float64)`)
    return { ends: c.ends, items: c.items.values }
  }
}

export function decodeNative(bytes: Buffer): NativeBlock[] {
  const reader = new NativeReader(bytes)
  const blocks: NativeBlock[] = []
  while (reader.more) {
    const columnCount = reader.length()
    const rows = reader.length()
    const columns = new Map<string, { type: string; column: NativeColumn }>()
    for (let c = 0; c < columnCount; c++) {
      const name = reader.string()
      const type = reader.string()
      columns.set(name, { type, column: reader.column(parseType(type), rows) })
    }
    blocks.push(new NativeBlock(rows, columns))
  }
  return blocks
}

type NativeType = { kind: 'String' | 'UInt32' | 'Float64' } | { kind: 'Array'; of: NativeType } | { kind: 'Tuple'; of: NativeType[] }

function parseType(type: string): NativeType {
  const t = type.trim()
  if (t === 'String' || t === 'UInt32' || t === 'Float64') return { kind: t }
  const inner = /^(Array|Tuple)\((.*)\)$/.exec(t)
  if (inner?.[1] === 'Array') return { kind: 'Array', of: parseType(inner[2]!) }
  if (inner?.[1] === 'Tuple') return { kind: 'Tuple', of: splitTopLevel(inner[2]!).map(parseType) }
  throw new Error(`Native type ${type} is not decoded here`)
}

/** "A, Array(B), Tuple(C, D)" → its top-level parts. */
function splitTopLevel(list: string): string[] {
  const parts: string[] = []
  let depth = 0
  let start = 0
  for (let i = 0; i < list.length; i++) {
    if (list[i] === '(') depth++
    else if (list[i] === ')') depth--
    else if (list[i] === ',' && depth === 0) {
      parts.push(list.slice(start, i))
      start = i + 1
    }
  }
  parts.push(list.slice(start))
  return parts
}

class NativeReader {
  private at = 0

  constructor(private readonly bytes: Buffer) {}

  get more(): boolean {
    return this.at < this.bytes.length
  }

  /** An unsigned LEB128 number (counts, string lengths). */
  length(): number {
    let value = 0
    let shift = 0
    for (;;) {
      const byte = this.bytes[this.advance(1)]!
      value += (byte & 0x7f) * 2 ** shift
      if (byte < 0x80) return value
      shift += 7
    }
  }

  string(): string {
    const n = this.length()
    const start = this.advance(n)
    return this.bytes.toString('utf8', start, start + n)
  }

  column(type: NativeType, count: number): NativeColumn {
    switch (type.kind) {
      case 'String':
        return { kind: 'String', values: Array.from({ length: count }, () => this.string()) }
      case 'UInt32':
        return { kind: 'UInt32', values: new Uint32Array(this.copy(count * 4)) }
      case 'Float64':
        return { kind: 'Float64', values: new Float64Array(this.copy(count * 8)) }
      case 'Array': {
        const ends = new Float64Array(count)
        for (let i = 0; i < count; i++) {
          const start = this.advance(8)
          ends[i] = this.bytes.readUInt32LE(start) + this.bytes.readUInt32LE(start + 4) * 2 ** 32 // UInt64 offsets, far below 2^53
        }
        return { kind: 'Array', ends, items: this.column(type.of, count > 0 ? ends[count - 1]! : 0) }
      }
      case 'Tuple':
        return { kind: 'Tuple', elements: type.of.map((element) => this.column(element, count)) }
    }
  }

  /** Moves past `n` bytes; returns where they start. */
  private advance(n: number): number {
    const start = this.at
    if (start + n > this.bytes.length) throw new Error(`Native answer ends inside a value (${n} bytes at ${start} of ${this.bytes.length})`)
    this.at = start + n
    return start
  }

  /** The next `n` bytes in a fresh (hence aligned) ArrayBuffer: the answer may be a pooled, unaligned slice. */
  private copy(n: number): ArrayBuffer {
    const start = this.advance(n)
    const out = new Uint8Array(n)
    out.set(this.bytes.subarray(start, start + n))
    return out.buffer
  }
}
