import { AverageGain, AverageLoss } from 'technicalindicators'

export const RSI_PERIOD = 14
const exact = (v: number) => v

/**
 * RSI 14 with Wilder's smoothing over the whole history (TA-Lib's convention: the
 * first averages are the plain means of the first 14 changes), unrounded.
 * technicalindicators' own RSI rounds to 2 decimals, so it is rebuilt here from its
 * AverageGain and AverageLoss (fed one close at a time: no intermediate arrays). Null
 * with fewer than 15 closes, and when the averages show no movement at all (TA-Lib
 * would answer 0 there; the RSI is undefined).
 */
export function latestRsi(closes: ArrayLike<number>, period = RSI_PERIOD): number | null {
  if (closes.length < period + 1) return null
  const gains = new AverageGain({ period, values: [], format: exact })
  const losses = new AverageLoss({ period, values: [], format: exact })
  let gain: number | undefined
  let loss: number | undefined
  for (let i = 0; i < closes.length; i++) {
    gain = gains.nextValue(closes[i]!)
    loss = losses.nextValue(closes[i]!)
  }
  if (gain === undefined || loss === undefined) return null
  const movement = gain + loss
  // TA-Lib treats |movement| < 1e-14 as no movement; scaled by the price level here, so
  // a token priced at 1e-12 USD is not mistaken for a flat one.
  const scale = Math.max(Math.abs(closes[closes.length - 1]!), Number.MIN_VALUE)
  if (!(movement > 1e-14 * Math.min(1, scale))) return null
  return (100 * gain) / movement
}
