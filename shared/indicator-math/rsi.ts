import { AverageGain, AverageLoss } from 'technicalindicators'

export const RSI_PERIOD = 14
const exact = (v: number) => v

/**
 * RSI 14 with Wilder's smoothing over the whole history (TA-Lib's convention: the
 * first averages are the plain means of the first 14 changes), unrounded, one close at
 * a time. technicalindicators' own RSI rounds to 2 decimals, so it is rebuilt here from
 * its AverageGain and AverageLoss. `value()` is the RSI of the closes fed so far: null
 * before the 15th, and when the averages show no movement at all (TA-Lib would answer 0
 * there; the RSI is undefined).
 */
export class RsiStream {
  private readonly gains: AverageGain
  private readonly losses: AverageLoss
  private gain: number | undefined
  private loss: number | undefined
  private lastClose = 0

  constructor(period = RSI_PERIOD) {
    this.gains = new AverageGain({ period, values: [], format: exact })
    this.losses = new AverageLoss({ period, values: [], format: exact })
  }

  next(close: number): void {
    this.gain = this.gains.nextValue(close)
    this.loss = this.losses.nextValue(close)
    this.lastClose = close
  }

  value(): number | null {
    const { gain, loss } = this
    if (gain === undefined || loss === undefined) return null
    const movement = gain + loss
    // TA-Lib treats |movement| < 1e-14 as no movement; scaled by the price level here, so
    // a token priced at 1e-12 USD is not mistaken for a flat one.
    const scale = Math.max(Math.abs(this.lastClose), Number.MIN_VALUE)
    if (!(movement > 1e-14 * Math.min(1, scale))) return null
    return (100 * gain) / movement
  }
}

/** The RSI after the last close (RsiStream fed every close); null with fewer than 15. */
export function latestRsi(closes: ArrayLike<number>, period = RSI_PERIOD): number | null {
  if (closes.length < period + 1) return null
  const rsi = new RsiStream(period)
  for (let i = 0; i < closes.length; i++) rsi.next(closes[i]!)
  return rsi.value()
}
