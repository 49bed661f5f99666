import type { Logger } from '../../shared/platform/logger.js'

export interface LogLine {
  level: 'debug' | 'info' | 'warn' | 'error'
  msg: string
  fields: Record<string, unknown>
}

/** A Logger that keeps every line in memory, for tests that check what was logged. */
export function recordingLogger(lines: LogLine[] = [], base: Record<string, unknown> = {}): Logger & { lines: LogLine[] } {
  const record = (level: LogLine['level']) => (msg: string, fields: Record<string, unknown> = {}) => {
    lines.push({ level, msg, fields: { ...base, ...fields } })
  }
  return {
    lines,
    debug: record('debug'),
    info: record('info'),
    warn: record('warn'),
    error: record('error'),
    child: (fields) => recordingLogger(lines, { ...base, ...fields }),
  }
}
