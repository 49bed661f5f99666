export { latestPivots, pivotLevels, PIVOT_CANDLES, type PivotInput, type PivotPoints } from '../shared/indicator-math/pivots.js'
