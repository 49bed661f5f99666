// The chart: candles, moving averages, volume and pivot levels in the top pane, RSI and
// MACD in their own panes below, on one time axis (lightweight-charts v5 panes).

import {
  CandlestickSeries,
  createChart,
  createTextWatermark,
  HistogramSeries,
  LineSeries,
  LineStyle,
} from '/chart-page/vendor/lightweight-charts.mjs'

export const COLORS = {
  up: '#16a34a',
  down: '#dc2626',
  upVolume: 'rgba(22, 163, 74, 0.28)',
  downVolume: 'rgba(220, 38, 38, 0.28)',
  ma50: '#2563eb',
  ma100: '#f59e0b',
  ma200: '#9333ea',
  rsi: '#7c3aed',
  macd: '#2563eb',
  signal: '#f97316',
  pivot: '#64748b',
  resistance: '#b91c1c',
  support: '#15803d',
  grid: '#eef1f5',
  text: '#475569',
}

/** @typedef {{time: number, open: number, high: number, low: number, close: number, volume: number}} Candle */
/**
 * @typedef {{candleTime: string, ma50: number | null, ma100: number | null, ma200: number | null, rsi: number | null,
 *            macd: {macd: number, signal: number, histogram: number} | null}} HistoryPoint
 */
/**
 * @typedef {{keyLevel: number, Resistance1: number, Support1: number, Resistance2: number, Support2: number}} Pivots
 */

/** lightweight-charts takes UTC seconds. @param {number} ms */
const seconds = (ms) => Math.floor(ms / 1000)

/**
 * @param {HTMLElement} container
 */
export function createPriceChart(container) {
  const chart = createChart(container, {
    autoSize: true,
    layout: {
      background: { color: '#ffffff' },
      textColor: COLORS.text,
      fontFamily: 'Inter, system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
      fontSize: 11,
      panes: { separatorColor: '#e2e8f0', separatorHoverColor: 'rgba(100, 116, 139, 0.15)', enableResize: true },
    },
    grid: { vertLines: { color: COLORS.grid }, horzLines: { color: COLORS.grid } },
    rightPriceScale: { borderColor: '#e2e8f0' },
    timeScale: { borderColor: '#e2e8f0', timeVisible: true, secondsVisible: false, rightOffset: 4, barSpacing: 7 },
    crosshair: { mode: 0 },
    localization: { priceFormatter: formatAxisPrice },
  })

  const candles = chart.addSeries(CandlestickSeries, {
    upColor: COLORS.up,
    downColor: COLORS.down,
    borderVisible: false,
    wickUpColor: COLORS.up,
    wickDownColor: COLORS.down,
    priceFormat: { type: 'custom', formatter: formatAxisPrice, minMove: 1e-12 },
  })
  const volume = chart.addSeries(HistogramSeries, {
    priceScaleId: 'volume',
    priceFormat: { type: 'volume' },
    lastValueVisible: false,
    priceLineVisible: false,
  })
  volume.priceScale().applyOptions({ scaleMargins: { top: 0.82, bottom: 0 } })
  candles.priceScale().applyOptions({ scaleMargins: { top: 0.06, bottom: 0.2 } })

  /** @param {string} color @param {string} title */
  const maLine = (color, title) =>
    chart.addSeries(LineSeries, {
      color,
      lineWidth: 2,
      title,
      lastValueVisible: false,
      priceLineVisible: false,
      crosshairMarkerVisible: false,
      priceFormat: { type: 'custom', formatter: formatAxisPrice, minMove: 1e-12 },
    })
  const ma50 = maLine(COLORS.ma50, 'MA50')
  const ma100 = maLine(COLORS.ma100, 'MA100')
  const ma200 = maLine(COLORS.ma200, 'MA200')

  const rsi = chart.addSeries(LineSeries, { color: COLORS.rsi, lineWidth: 2, priceLineVisible: false }, 1)
  for (const level of [70, 30]) {
    rsi.createPriceLine({ price: level, color: '#94a3b8', lineWidth: 1, lineStyle: LineStyle.Dashed, axisLabelVisible: true, title: '' })
  }
  rsi.createPriceLine({ price: 50, color: '#cbd5e1', lineWidth: 1, lineStyle: LineStyle.Dotted, axisLabelVisible: false, title: '' })

  const macdHistogram = chart.addSeries(HistogramSeries, { priceLineVisible: false, lastValueVisible: false }, 2)
  const macdLine = chart.addSeries(LineSeries, { color: COLORS.macd, lineWidth: 2, priceLineVisible: false, title: 'MACD' }, 2)
  const signalLine = chart.addSeries(LineSeries, { color: COLORS.signal, lineWidth: 2, priceLineVisible: false, title: 'signal' }, 2)

  const panes = chart.panes()
  panes[0]?.setStretchFactor(3.2)
  panes[1]?.setStretchFactor(1)
  panes[2]?.setStretchFactor(1.1)
  const label = { color: 'rgba(71, 85, 105, 0.75)', fontSize: 12, fontStyle: '600' }
  if (panes[1]) createTextWatermark(panes[1], { horzAlign: 'left', vertAlign: 'top', lines: [{ text: 'RSI 14', ...label }] })
  if (panes[2]) createTextWatermark(panes[2], { horzAlign: 'left', vertAlign: 'top', lines: [{ text: 'MACD 12 26 9', ...label }] })

  /** @type {Array<ReturnType<typeof candles.createPriceLine>>} */
  let pivotLines = []

  return {
    /**
     * The candles (oldest first) and the indicator history at each candle.
     * @param {Candle[]} candleRows
     * @param {HistoryPoint[]} history
     */
    setData(candleRows, history) {
      candles.setData(candleRows.map((c) => ({ time: seconds(c.time), open: c.open, high: c.high, low: c.low, close: c.close })))
      volume.setData(
        candleRows.map((c) => ({ time: seconds(c.time), value: c.volume, color: c.close >= c.open ? COLORS.upVolume : COLORS.downVolume })),
      )
      /** @param {(p: HistoryPoint) => number | null | undefined} pick */
      const line = (pick) =>
        history.flatMap((p) => {
          const value = pick(p)
          return value === null || value === undefined ? [] : [{ time: seconds(Date.parse(p.candleTime)), value }]
        })
      ma50.setData(line((p) => p.ma50))
      ma100.setData(line((p) => p.ma100))
      ma200.setData(line((p) => p.ma200))
      rsi.setData(line((p) => p.rsi))
      macdLine.setData(line((p) => p.macd?.macd))
      signalLine.setData(line((p) => p.macd?.signal))
      macdHistogram.setData(
        history.flatMap((p) =>
          p.macd === null
            ? []
            : [{ time: seconds(Date.parse(p.candleTime)), value: p.macd.histogram, color: p.macd.histogram >= 0 ? COLORS.upVolume : COLORS.downVolume }],
        ),
      )
      chart.timeScale().fitContent()
      const shown = Math.min(candleRows.length, 180)
      if (candleRows.length > shown) {
        chart.timeScale().setVisibleLogicalRange({ from: candleRows.length - shown, to: candleRows.length + 3 })
      }
    },

    /** Pivot levels (GET /technical-analysis) as price lines; null removes them. @param {Pivots | null} pivots */
    setPivots(pivots) {
      for (const line of pivotLines) candles.removePriceLine(line)
      pivotLines = []
      if (!pivots) return
      const levels = [
        ['R2', pivots.Resistance2, COLORS.resistance],
        ['R1', pivots.Resistance1, COLORS.resistance],
        ['P', pivots.keyLevel, COLORS.pivot],
        ['S1', pivots.Support1, COLORS.support],
        ['S2', pivots.Support2, COLORS.support],
      ]
      for (const [title, price, color] of levels) {
        if (typeof price !== 'number' || !Number.isFinite(price)) continue
        pivotLines.push(
          candles.createPriceLine({ price, color: String(color), lineWidth: 1, lineStyle: LineStyle.Dashed, axisLabelVisible: true, title: String(title) }),
        )
      }
    },

    clear() {
      for (const series of [candles, volume, ma50, ma100, ma200, rsi, macdHistogram, macdLine, signalLine]) series.setData([])
      this.setPivots(null)
    },

    /** What the chart holds, for the page's status and the browser test. */
    counts() {
      return {
        candles: candles.data().length,
        volume: volume.data().length,
        ma50: ma50.data().length,
        ma100: ma100.data().length,
        ma200: ma200.data().length,
        rsi: rsi.data().length,
        macd: macdLine.data().length,
        pivotLines: pivotLines.length,
        panes: chart.panes().length,
      }
    },
  }
}

/** Axis labels: enough significant digits for a $0.00001 token and a $90,000 one. @param {number} price */
function formatAxisPrice(price) {
  const magnitude = Math.abs(price)
  if (magnitude >= 1000) return price.toLocaleString('en-US', { maximumFractionDigits: 0 })
  if (magnitude >= 1) return price.toFixed(2)
  if (magnitude === 0) return '0'
  return price.toPrecision(4)
}
