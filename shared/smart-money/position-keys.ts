/**
 * The positions (wallet_token_positions) keep each (wallet, token) as 20 raw bytes each
 * (FixedString(20)), not the 42 characters of text every other table holds: the carried
 * lookup reads and hashes both for every stored position, and a full run writes and sorts
 * them for every pair (writing the benchmark's 12.6 million positions took half the time).
 * Stored addresses are always "0x" and 40 lower-case hex digits (records.ts), so the
 * conversion is exact both ways.
 */

/** An address as the positions store it, from its text. */
export const storedAddress = (text: string): string => `toFixedString(unhex(substring(${text}, 3)), 20)`

/** An address's text, from the positions' bytes. */
export const addressText = (bytes: string): string => `concat('0x', lower(hex(${bytes})))`

/** A list parameter (Array(String) of addresses) as a set of stored addresses, for IN. */
export const storedAddressSet = (param: string): string => `(SELECT ${storedAddress(`arrayJoin({${param}: Array(String)})`)})`
