import type { Config } from './config.js'

const levels = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const
type Level = Exclude<keyof typeof levels, 'silent'>

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void
  info(msg: string, fields?: Record<string, unknown>): void
  warn(msg: string, fields?: Record<string, unknown>): void
  error(msg: string, fields?: Record<string, unknown>): void
  child(fields: Record<string, unknown>): Logger
}

/** One JSON line per event on stderr, so stdout stays free for command output. */
export function createLogger(level: Config['logLevel'], base: Record<string, unknown> = {}): Logger {
  const threshold = levels[level]
  const write = (lvl: Level, msg: string, fields?: Record<string, unknown>) => {
    if (levels[lvl] < threshold) return
    const line = { time: new Date().toISOString(), level: lvl, msg, ...base, ...fields }
    process.stderr.write(JSON.stringify(line, errorReplacer) + '\n')
  }
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
    child: (fields) => createLogger(level, { ...base, ...fields }),
  }
}

function errorReplacer(_key: string, value: unknown): unknown {
  return value instanceof Error ? { name: value.name, message: value.message } : value
}
