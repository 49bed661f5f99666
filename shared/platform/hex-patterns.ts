/** The shapes of chain identifiers, declared once: any case as received, lower case as stored. */
export const ADDRESS_PATTERN = /^0x[0-9a-fA-F]{40}$/
export const TX_HASH_PATTERN = /^0x[0-9a-fA-F]{64}$/
export const LOWER_ADDRESS_PATTERN = /^0x[0-9a-f]{40}$/
export const LOWER_TX_HASH_PATTERN = /^0x[0-9a-f]{64}$/
