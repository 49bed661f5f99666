/** A Server-Sent Events message as a reader gets it. */
export interface SseMessage {
  event: string
  id: string | undefined
  data: string
}

/** Splits a text/event-stream body into messages (comments and `retry` skipped). */
export async function* sseMessages(body: AsyncIterable<Uint8Array>): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder()
  let buffer = ''
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true })
    let end: number
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      const block = buffer.slice(0, end)
      buffer = buffer.slice(end + 2)
      let event = 'message'
      let id: string | undefined
      const data: string[] = []
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) event = line.slice(7)
        else if (line.startsWith('id: ')) id = line.slice(4)
        else if (line.startsWith('data: ')) data.push(line.slice(6))
      }
      if (data.length > 0) yield { event, id, data: data.join('\n') }
    }
  }
}
