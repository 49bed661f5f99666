// Number, address and time formatting for the page.

const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 2 })
const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', maximumFractionDigits: 2 })
const usdCompact = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', notation: 'compact', maximumFractionDigits: 2 })

/**
 * A price with as many significant digits as its size calls for ($0.000012345, $2,204.10).
 * @param {number | null | undefined} value
 */
export function formatPrice(value) {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—'
  const magnitude = Math.abs(value)
  if (magnitude >= 1) return usd.format(value)
  if (magnitude === 0) return '$0'
  return `$${value.toPrecision(4)}`
}

/** @param {number | null | undefined} value */
export function formatUsd(value) {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—'
  return Math.abs(value) >= 100_000 ? usdCompact.format(value) : usd.format(value)
}

/** @param {number | null | undefined} value */
export function formatAmount(value) {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—'
  if (Math.abs(value) >= 10_000) return compact.format(value)
  return value.toLocaleString('en-US', { maximumSignificantDigits: 6 })
}

/**
 * @param {number | null | undefined} value
 * @param {number} [digits]
 */
export function formatNumber(value, digits = 2) {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—'
  return value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
}

/** @param {number | null | undefined} ratio e.g. 0.034 for 3.4 % */
export function formatPercent(ratio) {
  if (ratio === null || ratio === undefined || !Number.isFinite(ratio)) return '—'
  const sign = ratio > 0 ? '+' : ''
  return `${sign}${(ratio * 100).toFixed(2)} %`
}

/** `0x1234…abcd` @param {string} address */
export function shortAddress(address) {
  return address.length > 12 ? `${address.slice(0, 6)}…${address.slice(-4)}` : address
}

/** `2026-11-23 04:00` (UTC) @param {string | number} time ISO text or ms */
export function formatTime(time) {
  const iso = new Date(time).toISOString()
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)}`
}
