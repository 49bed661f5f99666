/** ClickHouse's DateTime64(3) parameter text for a time in ms (UTC). */
export function dateTime64Param(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '')
}
