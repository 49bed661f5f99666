// The search box: tokens by symbol or name from GET /tokens, or one contract address.

import { getEnvelope } from './api-client.js'

const ADDRESS = /^0x[0-9a-fA-F]{40}$/
const PAGE = 500
/** GET /tokens pages read at most: enough for a directory of 5,000 tokens. */
const MAX_PAGES = 10
const MAX_SUGGESTIONS = 12

/**
 * @typedef {{id: string, name: string | null, symbol: string | null, decimals: number | null, contract_address: string}} Token
 */

/** Every token of GET /tokens (in pages of 500), for searching in the page. */
export async function loadTokenDirectory() {
  /** @type {Token[]} */
  const tokens = []
  for (let page = 0; page < MAX_PAGES; page++) {
    const envelope = await getEnvelope('/tokens', { limit: PAGE, offset: page * PAGE })
    tokens.push(...envelope.result)
    if (tokens.length >= envelope.pagination.total || envelope.result.length === 0) break
  }
  return tokens
}

/**
 * Tokens matching the query: an exact symbol first, then symbols and names that start
 * with it, then those that contain it; an address matches its token.
 * @param {Token[]} tokens
 * @param {string} query
 */
export function searchTokens(tokens, query) {
  const q = query.trim().toLowerCase()
  if (q === '') return []
  /** @param {Token} t */
  const rank = (t) => {
    const symbol = (t.symbol ?? '').toLowerCase()
    const name = (t.name ?? '').toLowerCase()
    if (symbol === q || t.contract_address === q) return 0
    if (symbol.startsWith(q)) return 1
    if (name.startsWith(q)) return 2
    if (symbol.includes(q) || name.includes(q) || t.contract_address.startsWith(q)) return 3
    return 4
  }
  return tokens
    .map((t) => ({ t, r: rank(t) }))
    .filter((x) => x.r < 4)
    .sort((a, b) => a.r - b.r || (a.t.symbol ?? '').localeCompare(b.t.symbol ?? ''))
    .slice(0, MAX_SUGGESTIONS)
    .map((x) => x.t)
}

/**
 * Wires the search form: suggestions while typing (arrows and Enter to choose), and an
 * address submitted as it is (looked up by the caller, so a token outside the list or an
 * unknown address gets the API's own answer).
 * @param {{form: HTMLFormElement, input: HTMLInputElement, list: HTMLUListElement,
 *          tokens: () => Token[], onPick: (address: string) => void, onMiss: (query: string) => void}} parts
 */
export function wireTokenPicker({ form, input, list, tokens, onPick, onMiss }) {
  /** @type {Token[]} */
  let shown = []
  let active = -1

  const close = () => {
    list.hidden = true
    list.replaceChildren()
    shown = []
    active = -1
  }

  /** @param {Token} token */
  const pick = (token) => {
    input.value = token.symbol ?? token.contract_address
    close()
    input.blur()
    onPick(token.contract_address)
  }

  const render = () => {
    list.replaceChildren(
      ...shown.map((token, i) => {
        const item = document.createElement('li')
        item.setAttribute('role', 'option')
        item.className = i === active ? 'active' : ''
        item.dataset.address = token.contract_address
        const symbol = document.createElement('strong')
        symbol.textContent = token.symbol ?? '?'
        const name = document.createElement('span')
        name.textContent = token.name ?? ''
        const address = document.createElement('code')
        address.textContent = `${token.contract_address.slice(0, 8)}…${token.contract_address.slice(-6)}`
        item.append(symbol, name, address)
        item.addEventListener('mousedown', (event) => {
          event.preventDefault()
          pick(token)
        })
        return item
      }),
    )
    list.hidden = shown.length === 0
  }

  input.addEventListener('input', () => {
    shown = searchTokens(tokens(), input.value)
    active = shown.length > 0 ? 0 : -1
    render()
  })
  input.addEventListener('keydown', (event) => {
    if (list.hidden) return
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault()
      const step = event.key === 'ArrowDown' ? 1 : -1
      active = (active + step + shown.length) % shown.length
      render()
    } else if (event.key === 'Escape') {
      close()
    }
  })
  input.addEventListener('blur', () => setTimeout(close, 100))
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    const query = input.value.trim()
    if (ADDRESS.test(query)) {
      close()
      onPick(query.toLowerCase())
      return
    }
    const choice = shown[active] ?? searchTokens(tokens(), query)[0]
    if (choice) pick(choice)
    else if (query !== '') onMiss(query)
  })
}
