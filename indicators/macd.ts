export { latestMacd, MACD_FAST, MACD_SIGNAL, MACD_SLOW, type MacdValue } from '../shared/indicator-math/macd.js'
