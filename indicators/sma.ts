export { latestSma } from '../shared/indicator-math/sma.js'
