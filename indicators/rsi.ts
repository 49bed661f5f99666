export { latestRsi, RSI_PERIOD } from '../shared/indicator-math/rsi.js'
