// The holders and swaps tables, built from GET /holdings/token/:address and
// GET /swap-transactions rows. Text goes in through textContent only.

import { formatAmount, formatTime, formatUsd, shortAddress } from './format.js'

/**
 * @param {string} tag
 * @param {string} [text]
 * @param {string} [className]
 */
function element(tag, text, className) {
  const node = document.createElement(tag)
  if (text !== undefined) node.textContent = text
  if (className) node.className = className
  return node
}

/** @param {string} address */
function walletCell(address) {
  const cell = element('td')
  const code = element('code', shortAddress(address), 'address')
  code.title = address
  cell.append(code)
  return cell
}

/** @param {HTMLTableSectionElement} body @param {string} message @param {number} columns */
function emptyRow(body, message, columns) {
  const row = element('tr', undefined, 'empty')
  const cell = element('td', message)
  cell.colSpan = columns
  row.append(cell)
  body.replaceChildren(row)
}

/**
 * @typedef {{wallet_address: string, balance: number | null, balance_raw: string, value_usd: number | null}} Holding
 */

/**
 * One row per holder, largest value first, with a bar of its value against the largest.
 * @param {HTMLTableSectionElement} body
 * @param {Holding[]} holdings
 */
export function renderHolders(body, holdings) {
  if (holdings.length === 0) {
    emptyRow(body, 'No tracked wallet holds this token.', 4)
    return
  }
  const top = Math.max(...holdings.map((h) => h.value_usd ?? 0), 0)
  body.replaceChildren(
    ...holdings.map((holding, i) => {
      const row = element('tr')
      row.append(element('td', String(i + 1), 'rank'))
      row.append(walletCell(holding.wallet_address))
      const balance = element('td', holding.balance === null ? holding.balance_raw : formatAmount(holding.balance), 'num')
      if (holding.balance === null) balance.title = 'raw amount: the token has no decimals yet'
      row.append(balance)
      const value = element('td', undefined, 'num bar-cell')
      const bar = element('span', undefined, 'bar')
      bar.style.width = top > 0 && holding.value_usd !== null ? `${Math.max(2, (holding.value_usd / top) * 100)}%` : '0'
      value.append(bar, element('span', formatUsd(holding.value_usd), 'bar-text'))
      row.append(value)
      return row
    }),
  )
}

/**
 * @typedef {{contract_address: string | null, symbol: string | null, amount: number | null, amount_raw: string}} SwapLeg
 * @typedef {{hash: string, timestamp: string, wallet_address: string, token_sold: SwapLeg, token_bought: SwapLeg,
 *            value_usd: number | null, dex: string | null}} Swap
 */

/**
 * One row per swap, newest first: whether the wallet bought or sold the token, how much,
 * for what.
 * @param {HTMLTableSectionElement} body
 * @param {Swap[]} swaps
 * @param {string} address the token's contract address
 */
export function renderSwaps(body, swaps, address) {
  if (swaps.length === 0) {
    emptyRow(body, 'No swap of this token by a tracked wallet.', 6)
    return
  }
  body.replaceChildren(
    ...swaps.map((swap) => {
      const bought = swap.token_bought.contract_address === address
      const ours = bought ? swap.token_bought : swap.token_sold
      const other = bought ? swap.token_sold : swap.token_bought
      const row = element('tr')
      const time = element('td', formatTime(swap.timestamp), 'time')
      time.title = swap.hash
      row.append(time)
      row.append(walletCell(swap.wallet_address))
      row.append(element('td', bought ? 'Buy' : 'Sell', bought ? 'side buy' : 'side sell'))
      row.append(element('td', ours.amount === null ? ours.amount_raw : formatAmount(ours.amount), 'num'))
      const counter = element('td', other.symbol ?? shortAddress(other.contract_address ?? '?'))
      if (swap.dex) counter.append(element('span', ` on ${swap.dex}`, 'dex'))
      row.append(counter)
      row.append(element('td', formatUsd(swap.value_usd), 'num'))
      return row
    }),
  )
}

/** @param {HTMLTableSectionElement} body @param {number} columns */
export function renderLoading(body, columns) {
  emptyRow(body, 'Loading…', columns)
}
