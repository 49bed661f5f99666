import { constants, createReadStream, type ReadStream } from 'node:fs'
import { access, open, stat } from 'node:fs/promises'
import type { Readable } from 'node:stream'
import { createGunzip } from 'node:zlib'

export type FileFormat = 'ndjson' | 'csv'

/** What the command learns about a file before anything is enqueued. */
export interface BackfillFile {
  path: string
  size: number
  format: FileFormat
  gzip: boolean
}

export class FileProblem extends Error {}

const GZIP_MAGIC = [0x1f, 0x8b]

/** The format from the name: `.csv` (or `.csv.gz`) is CSV, anything else NDJSON. */
export function formatFromName(path: string): FileFormat {
  return /\.csv(\.gz)?$/i.test(path) ? 'csv' : 'ndjson'
}

/**
 * Checks that a file exists, is a regular file and can be read, and tells gzip by its
 * magic bytes (a compressed file without `.gz` is still read correctly).
 */
export async function inspectFile(path: string, format?: FileFormat): Promise<BackfillFile> {
  let size: number
  try {
    const info = await stat(path)
    if (!info.isFile()) throw new FileProblem(`${path}: not a regular file`)
    size = info.size
    await access(path, constants.R_OK)
  } catch (error) {
    if (error instanceof FileProblem) throw error
    throw new FileProblem(`${path}: ${describeFsError(error)}`)
  }
  const handle = await open(path, 'r').catch((error: unknown) => {
    throw new FileProblem(`${path}: ${describeFsError(error)}`)
  })
  try {
    const head = Buffer.alloc(2)
    const { bytesRead } = await handle.read(head, 0, 2, 0)
    const gzip = bytesRead === 2 && head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1]
    return { path, size, format: format ?? formatFromName(path), gzip }
  } finally {
    await handle.close()
  }
}

export interface OpenedFile {
  /** The decompressed content. */
  content: Readable
  /** Bytes read from disk so far (compressed bytes for gzip), for progress by size. */
  bytesRead(): number
}

export function openFile(file: BackfillFile): OpenedFile {
  const raw: ReadStream = createReadStream(file.path, { highWaterMark: 256 * 1024 })
  if (!file.gzip) return { content: raw, bytesRead: () => raw.bytesRead }
  const gunzip = createGunzip()
  raw.on('error', (error) => gunzip.destroy(error))
  return { content: raw.pipe(gunzip), bytesRead: () => raw.bytesRead }
}

function describeFsError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  if (code === 'ENOENT') return 'no such file'
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied (cannot read the file)'
  if (code === 'EISDIR') return 'is a directory, not a file'
  return error instanceof Error ? error.message : String(error)
}
