import type { ClickHouseClient } from './clickhouse.js'

/**
 * A query's whole answer in ClickHouse's RowBinary format (the query text without its
 * FORMAT clause; values as typed parameters, never spliced in). RowBinary carries numbers
 * as their raw little-endian bytes: exact, with nothing to parse, where a JSON format
 * costs a decimal rendering in ClickHouse and a parse per number here. @clickhouse/client
 * decodes no binary format itself, so the query runs through `exec` (the FORMAT clause is
 * ours) and the bytes are read with RowBinaryReader.
 */
export async function queryRowBinary(
  clickhouse: ClickHouseClient,
  query: string,
  query_params: Record<string, unknown>,
): Promise<Buffer> {
  const { stream } = await clickhouse.exec({ query: `${query}\nFORMAT RowBinary`, query_params })
  const chunks: Buffer[] = []
  for await (const chunk of stream) chunks.push(chunk as Buffer)
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)
}

/** Reads RowBinary values in order (https://clickhouse.com/docs/interfaces/formats/RowBinary). */
export class RowBinaryReader {
  private at = 0

  constructor(private readonly bytes: Buffer) {}

  /** True while rows remain. */
  get more(): boolean {
    return this.at < this.bytes.length
  }

  /** An unsigned LEB128 length: of a String in bytes, of an Array in elements. */
  length(): number {
    let value = 0
    let shift = 0
    for (;;) {
      const byte = this.take(1)
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

  uint32(): number {
    return this.bytes.readUInt32LE(this.advance(4))
  }

  float64(): number {
    return this.bytes.readDoubleLE(this.advance(8))
  }

  /** An Array(UInt32). */
  uint32Array(): Uint32Array {
    const n = this.length()
    const start = this.advance(n * 4)
    return new Uint32Array(this.copy(start, n * 4))
  }

  /** An Array(Float64), copied into an aligned Float64Array (the bytes as they are: exact). */
  float64Array(): Float64Array {
    const n = this.length()
    const start = this.advance(n * 8)
    return new Float64Array(this.copy(start, n * 8))
  }

  private take(n: 1): number {
    return this.bytes[this.advance(n)]!
  }

  /** Moves past `n` bytes; returns where they start. */
  private advance(n: number): number {
    const start = this.at
    if (start + n > this.bytes.length) throw new Error(`RowBinary answer ends inside a value (${n} bytes at ${start} of ${this.bytes.length})`)
    this.at = start + n
    return start
  }

  /** A fresh (hence aligned) ArrayBuffer holding `n` bytes from `start`; the input may be a pooled, unaligned slice. */
  private copy(start: number, n: number): ArrayBuffer {
    const out = new Uint8Array(n)
    out.set(this.bytes.subarray(start, start + n))
    return out.buffer
  }
}
