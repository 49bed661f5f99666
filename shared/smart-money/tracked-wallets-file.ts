import { readFile, stat } from 'node:fs/promises'

export interface TrackedWallets {
  /** Address (lower case) → name (null when the line gives none). */
  wallets: Map<string, string | null>
  /** Lines that are not a wallet, with their reason (they are skipped, not guessed at). */
  problems: { line: number; reason: string }[]
}

const EMPTY: TrackedWallets = { wallets: new Map(), problems: [] }
const ADDRESS = /^0x[0-9a-fA-F]{40}$/

/** `0xabc…  Some name` per line; blank lines and `#` comments skipped; a repeated address keeps its last name. */
export function parseTrackedWallets(text: string): TrackedWallets {
  const wallets = new Map<string, string | null>()
  const problems: TrackedWallets['problems'] = []
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.replace(/#.*$/, '').trim()
    if (line === '') return
    const [address, ...rest] = line.split(/[\s,]+/)
    if (!address || !ADDRESS.test(address)) {
      problems.push({ line: i + 1, reason: `not an address: "${address ?? ''}"` })
      return
    }
    const name = line.slice(line.indexOf(address) + address.length).replace(/^[\s,]+/, '').trim()
    wallets.set(address.toLowerCase(), rest.length > 0 && name !== '' ? name.slice(0, 200) : null)
  })
  return { wallets, problems }
}

/**
 * The configured tracked-wallets file, re-read when its modification time or size changes
 * (one stat per call), so an edit takes effect without a restart; the same object is returned
 * until then, so a reader may key what it builds on it. No file configured: none.
 */
export class TrackedWalletsFile {
  private cached: TrackedWallets = EMPTY
  private signature = ''

  constructor(private readonly path: string | null) {}

  get configured(): boolean {
    return this.path !== null
  }

  async current(): Promise<TrackedWallets> {
    if (this.path === null) return EMPTY
    let signature: string
    try {
      const s = await stat(this.path)
      signature = `${s.mtimeMs}:${s.size}`
    } catch (err) {
      // The same reading while the file stays unreadable: readers keep what they built from it.
      const code = (err as NodeJS.ErrnoException).code ?? 'error'
      if (this.signature !== `unreadable:${code}`) {
        this.cached = { wallets: new Map(), problems: [{ line: 0, reason: `the file cannot be read: ${code}` }] }
        this.signature = `unreadable:${code}`
      }
      return this.cached
    }
    if (signature !== this.signature) {
      this.cached = parseTrackedWallets(await readFile(this.path, 'utf8'))
      this.signature = signature
    }
    return this.cached
  }
}
