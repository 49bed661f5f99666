/**
 * The configuration table of docs/operations.md, built from the environment schema itself
 * (shared/platform/config.ts): each variable's name, default, accepted values and its
 * `.describe()` text. docs/generate-configuration.ts writes it into the page between the
 * two markers; test/operations-doc.test.ts checks that the page holds what this builds.
 */
import type { z } from 'zod'
import { envSchema } from '../shared/platform/config.js'

export const TABLE_START = '<!-- configuration-table:start (npm run docs:config) -->'
export const TABLE_END = '<!-- configuration-table:end -->'

/** The parts of a zod schema's definition this reads. */
interface Definition {
  type: string
  innerType?: z.ZodType
  in?: z.ZodType
  defaultValue?: unknown
  entries?: Record<string, string>
  format?: string
  checks?: { _zod: { def: { check: string; value?: number; inclusive?: boolean; format?: string } } }[]
}

function definition(schema: z.ZodType): Definition {
  return (schema as unknown as { _zod: { def: Definition } })._zod.def
}

/** The default as an operator writes it, or `unset`. */
function defaultOf(schema: z.ZodType): string {
  const def = definition(schema)
  if (def.type === 'default') {
    const value = def.defaultValue
    if (Array.isArray(value) && value.length === 0) return 'unset'
    if (value === '') return 'empty'
    return `\`${Array.isArray(value) ? value.join(',') : String(value)}\``
  }
  if (def.type === 'pipe' && def.in) return defaultOf(def.in)
  return 'unset'
}

/** What the variable accepts, from the innermost input schema. */
function acceptsOf(schema: z.ZodType): string {
  const def = definition(schema)
  if ((def.type === 'default' || def.type === 'optional') && def.innerType) return acceptsOf(def.innerType)
  if (def.type === 'pipe' && def.in) {
    const inner = definition(def.in)
    if (inner.type === 'enum' && inner.entries && 'true' in inner.entries) return '`true`/`false` (also `1`/`0`, `yes`/`no`)'
    return acceptsOf(def.in)
  }
  if (def.type === 'enum' && def.entries) return Object.values(def.entries).map((v) => `\`${v}\``).join(', ')
  if (def.type === 'number') {
    const checks = (def.checks ?? []).map((c) => c._zod.def)
    const integer = checks.some((c) => c.check === 'number_format')
    const min = checks.find((c) => c.check === 'greater_than')?.value
    const max = checks.find((c) => c.check === 'less_than')?.value
    const bounds = min !== undefined && max !== undefined ? ` ${min}–${max}` : min !== undefined ? ` ≥ ${min}` : ''
    return `${integer ? 'integer' : 'number'}${bounds}`
  }
  if (def.type === 'string' && def.format === 'url') return 'URL'
  return 'text'
}

function cell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ')
}

/** The markdown table of every variable, in the schema's order. */
export function configurationTable(): string {
  const rows = Object.entries(envSchema.shape as Record<string, z.ZodType>).map(([name, schema]) => {
    const description = schema.description
    if (!description) throw new Error(`${name} has no description in shared/platform/config.ts: add .describe()`)
    return `| \`${name}\` | ${cell(defaultOf(schema))} | ${cell(acceptsOf(schema))} | ${cell(description)} |`
  })
  return ['| Variable | Default | Accepts | Meaning |', '|---|---|---|---|', ...rows].join('\n')
}

/** The page with the table between the markers replaced by the current one. */
export function withConfigurationTable(page: string): string {
  const start = page.indexOf(TABLE_START)
  const end = page.indexOf(TABLE_END)
  if (start < 0 || end < start) throw new Error(`the page has no ${TABLE_START} … ${TABLE_END} markers`)
  return `${page.slice(0, start + TABLE_START.length)}\n${configurationTable()}\n${page.slice(end)}`
}
