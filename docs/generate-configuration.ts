/**
 * `npm run docs:config`: writes the configuration table, generated from the environment
 * schema (shared/platform/config.ts), into docs/operations.md between its markers.
 * Exit codes: 0 written (or already current), 1 failed.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { withConfigurationTable } from './configuration-table.js'

const PAGE = new URL('./operations.md', import.meta.url)

try {
  const page = readFileSync(PAGE, 'utf8')
  const updated = withConfigurationTable(page)
  if (updated === page) {
    console.log('docs/operations.md: the configuration table is current')
  } else {
    writeFileSync(PAGE, updated)
    console.log('docs/operations.md: configuration table written')
  }
} catch (err) {
  console.error(`docs:config: ${err instanceof Error ? err.message : String(err)}`)
  process.exitCode = 1
}
