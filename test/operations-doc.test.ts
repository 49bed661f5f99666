import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { configurationTable, TABLE_END, TABLE_START, withConfigurationTable } from '../docs/configuration-table.js'
import { envSchema } from '../shared/platform/config.js'

const PAGE = new URL('../docs/operations.md', import.meta.url)

/**
 * docs/operations.md's configuration table is generated from the environment schema
 * (`npm run docs:config`): a variable added, removed, re-described or given another default
 * without regenerating the page fails here.
 */
describe('the configuration table of docs/operations.md', () => {
  const page = readFileSync(PAGE, 'utf8')

  it('is what the schema generates (run npm run docs:config when this fails)', () => {
    expect(page).toContain(TABLE_START)
    expect(page).toContain(TABLE_END)
    expect(withConfigurationTable(page)).toBe(page)
  })

  it('has one row per variable of the schema, each with its default and description', () => {
    const table = configurationTable()
    const names = Object.keys(envSchema.shape)
    expect(table.split('\n')).toHaveLength(names.length + 2)
    for (const name of names) expect(table).toContain(`| \`${name}\` |`)
    expect(table).toContain('| `PORT` | `3000` | integer 0–65535 | HTTP port of the API |')
    expect(table).toMatch(/\| `CLICKHOUSE_URL` \| unset \| URL \| /)
    expect(table).toMatch(/\| `CLICKHOUSE_FSYNC` \| `true` \| `true`\/`false`/)
  })

  it('notices a stale page', () => {
    const stale = page.replace('| HTTP port of the API |', '| the port |')
    expect(stale).not.toBe(page)
    expect(withConfigurationTable(stale)).not.toBe(stale)
  })
})
