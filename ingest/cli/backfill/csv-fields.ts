/**
 * The cells of one CSV row (RFC 4180: comma-separated, a quoted cell may hold commas,
 * line breaks and doubled quotes `""`). `text` is the whole row, already joined across
 * lines by the reader. Returns the cells, or the problem when the row cannot be read.
 */
export function csvCells(text: string): string[] | { problem: string } {
  const cells: string[] = []
  const n = text.length
  let i = 0
  for (;;) {
    if (text.charCodeAt(i) === QUOTE) {
      let value = ''
      let from = i + 1
      for (;;) {
        const quote = text.indexOf('"', from)
        if (quote === -1) return { problem: QUOTE_NOT_CLOSED }
        value += text.slice(from, quote)
        if (text.charCodeAt(quote + 1) !== QUOTE) {
          i = quote + 1
          break
        }
        value += '"'
        from = quote + 2
      }
      cells.push(value)
      if (i === n) return cells
      if (text.charCodeAt(i) !== COMMA) {
        return { problem: `Invalid Closing Quote: got "${text[i]}" after the quoted cell ${cells.length} instead of a comma` }
      }
      i++
    } else {
      const comma = text.indexOf(',', i)
      const end = comma === -1 ? n : comma
      const value = text.slice(i, end)
      if (value.includes('"')) {
        return { problem: `Invalid Opening Quote: a quote is found inside the unquoted cell ${cells.length + 1}` }
      }
      cells.push(value)
      if (comma === -1) return cells
      i = comma + 1
    }
  }
}

/** Whether the row's quotes are balanced: an odd count means a quoted cell runs on to the next line (or never closes). */
export function opensQuote(text: string): boolean {
  let count = 0
  for (let i = text.indexOf('"'); i !== -1; i = text.indexOf('"', i + 1)) count++
  return count % 2 === 1
}

export const QUOTE_NOT_CLOSED = 'Quote Not Closed: the quote opened in this row is not closed'

const QUOTE = 34
const COMMA = 44
