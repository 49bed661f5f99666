import { isAddress } from '../address-params.js'
import { isServed, type ServedScope } from '../served-wallets.js'
import type { EventSubject } from './swap-events.js'

/** What one client asked for (GET /stream/swaps's filters). */
export interface StreamFilter {
  wallet?: string | undefined
  tokenId?: string | undefined
  tracked: boolean
  minValueUsd?: number | undefined
}

/** What a batch of events is judged against, read once per batch. */
export interface FilterContext {
  /** The wallets the service serves (SERVED_WALLETS): null, every wallet. */
  served: ServedScope | null
  /** The tracked set, when a client asks for it. */
  tracked: ReadonlySet<string> | null
  /** A token id's addresses (as GET /swap-transactions resolves token_id). */
  addressesOf(tokenId: string, addressShaped: boolean): readonly string[]
}

/**
 * Whether a client gets an event. A swap without a USD value fails `min_value_usd`; a
 * retraction passes it (its value is not known), and a token filter when it names none of its legs' tokens (a wallet's same-time
 * tombstone names none).
 */
export function matches(filter: StreamFilter, subject: EventSubject, ctx: FilterContext): boolean {
  if (!isServed(ctx.served, subject.wallet)) return false
  if (filter.wallet !== undefined && subject.wallet !== filter.wallet) return false
  if (filter.tracked && !(ctx.tracked?.has(subject.wallet) ?? false)) return false
  if (filter.tokenId !== undefined && subject.tokens.length > 0) {
    const wanted = ctx.addressesOf(filter.tokenId, isAddress(filter.tokenId))
    if (!subject.tokens.some((t) => wanted.includes(t))) return false
  }
  if (filter.minValueUsd !== undefined && !subject.retraction && (subject.valueUsd === null || subject.valueUsd < filter.minValueUsd)) return false
  return true
}
