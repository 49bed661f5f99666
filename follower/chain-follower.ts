import type { FollowerConfig } from '../shared/platform/config.js'
import type { IngestProducer } from '../shared/records/ingest-producer.js'
import type { Logger } from '../shared/platform/logger.js'
import type { Redis } from '../shared/platform/redis.js'
import type { RecordType } from '../shared/platform/queues.js'
import { AdaptiveLogReader } from './adaptive-log-reader.js'
import { swapLogBlocks } from './chain-logs.js'
import type { ChainRpc, BlockHeader } from './chain-rpc.js'
import { FollowerStateStore, type FollowerState, type SettledState, type WindowBlock } from './follower-state.js'
import { FollowerStats } from './follower-stats.js'
import { FinalizedRecords, tradedByBlock, type FinalityWork } from './finalized-records.js'
import { HoldingWallets } from './holding-wallets.js'
import { HistoryPrefetch } from './history-prefetch.js'
import { HoldingsReader, type FollowedHoldingRecord } from './holdings-reader.js'
import { FollowerStopped, waitForJobs } from './job-acks.js'
import { PoolRegistry } from './pool-registry.js'
import { extractSwaps, retractionOf, type Extraction } from './swap-extraction.js'
import { TokenMetadataReader } from './token-metadata.js'
import { PriceSlots, type FollowedPriceRecord } from './trade-prices.js'
import { UsdPrices } from './usd-prices.js'

/** Blocks read per live step at most (the head's neighbourhood, header by header). */
const LIVE_STEP_BLOCKS = 50

/**
 * History steps sent before the oldest one's acknowledgement is awaited. The ingest
 * workers insert what they hold together (and at once when every job slot waits), so
 * several steps share an insert instead of each waiting out the flush timer on its own.
 */
const HISTORY_STEPS_IN_FLIGHT = 4

type StepRecords = Array<{ type: RecordType; records: unknown[] }>

/** A history step sent and not yet settled. */
interface SentStep {
  to: number
  jobIds: string[]
  next: SettledState
  acknowledged: Promise<void>
  /** Moves the counters, in the turn the step settles. */
  count(): Promise<void>
}

function hasFinalityWork(b: FinalityWork): boolean {
  return (b.prices?.length ?? 0) > 0 || (b.traded?.length ?? 0) > 0
}

export interface FollowerProgress {
  mode: 'history' | 'live'
  block: number
  head: number
  stats: ReturnType<FollowerStats['snapshot']>
}

export interface ChainFollowerDeps {
  config: FollowerConfig
  rpc: ChainRpc
  producer: IngestProducer
  redis: Redis
  redisPrefix: string
  logger: Logger
  /** Overrides FOLLOW_FROM_BLOCK (the CLI's --from-block) for a follower with no checkpoint. */
  fromBlock?: number | null
  onProgress?: (p: FollowerProgress) => void
}

/**
 * Follows a chain into the ingest queue. Finalized history (below head − FINALITY_DEPTH) is
 * read in adaptive eth_getLogs ranges; the unfinalized part header by header, keeping the
 * window of (number, hash) with what would retract each block's swaps. A block whose parent
 * hash does not match the window is a reorg: the follower walks back to the common
 * ancestor, retracts the orphaned blocks' swaps through the queue, and reads the canonical
 * blocks. What cannot be retracted waits for finality: a block's price records, and the
 * holdings its swaps changed (balanceOf at the newest finalized block), are kept with it in
 * the window and sent with the swaps of the step in which it leaves the window (history
 * ranges are final when read). The
 * checkpoint moves only once the queue has acknowledged a step's jobs (see
 * FollowerState.pending), so a SIGKILL at any point neither skips nor doubles anything.
 */
export class ChainFollower {
  stats!: FollowerStats
  private state!: FollowerState
  private store!: FollowerStateStore
  private chainId = 0
  private history: HistoryPrefetch
  private pools!: PoolRegistry
  private metadata!: TokenMetadataReader
  private prices!: UsdPrices
  private finalized!: FinalizedRecords
  private readonly priceSlots = new PriceSlots()
  private stopping = false
  /** History steps sent and not yet settled, oldest first; the next ones are read and extracted meanwhile. */
  private inFlight: SentStep[] = []
  private loop: Promise<void> | null = null
  private wake: (() => void) | null = null

  constructor(private readonly deps: ChainFollowerDeps) {
    this.history = new HistoryPrefetch(new AdaptiveLogReader(deps.rpc, deps.config.maxLogRange, deps.logger), deps.rpc)
  }

  get checkpoint() {
    return this.state.checkpoint
  }

  /** The newest block whose price and holding records are sent (every block before it is final and done). */
  get finalizedThrough(): number {
    const first = this.state.window[0]
    return first === undefined ? this.state.checkpoint.number : first.number - 1
  }

  /** Connects, settles a step left pending by a previous run, and starts following. */
  async start(): Promise<void> {
    const { rpc, config, logger } = this.deps
    this.chainId = await rpc.chainId()
    this.stats = new FollowerStats(this.deps.redis, this.deps.redisPrefix, this.chainId)
    this.store = new FollowerStateStore(this.deps.redis, this.deps.redisPrefix, this.chainId)
    this.pools = new PoolRegistry(rpc, { v2: new Set(config.v2Factories), v3: new Set(config.v3Factories) }, logger)
    this.metadata = new TokenMetadataReader(rpc, this.chainId, logger)
    const loaded = await this.store.load()
    this.state = loaded ?? { checkpoint: { number: -1, hash: null }, window: [], prices: {}, pending: null }
    if (this.state.pending) await this.undoPendingStep()
    this.prices = this.pricesAtCheckpoint()
    const holdings = new HoldingsReader(rpc, logger, (token, balance) => this.usdValue(token, balance))
    this.finalized = new FinalizedRecords(rpc, new HoldingWallets(config.holdings.wallets, config.holdings.trackedWalletsFile), holdings, logger)
    logger.info('following', { chainId: this.chainId, url: rpc.url, checkpoint: this.state.checkpoint.number })
    this.loop = this.run()
  }

  /**
   * A step a previous run left pending is done again from its checkpoint, never taken as
   * done: that run may have died between writing the step and sending its jobs, and a job
   * the queue no longer holds is either one never sent or one completed and since removed.
   * Its unfinalized blocks may have been stored and may since have been orphaned, so their
   * swaps are retracted first (a retraction of a swap never stored changes nothing; one sent
   * again is live again: the later delivery wins). Final blocks are simply sent again:
   * their records are stored once.
   */
  private async undoPendingStep(): Promise<void> {
    const { pending, checkpoint, window, prices } = this.state
    if (!pending) return
    const maybeStored = pending.next.window.filter((b) => b.number > checkpoint.number)
    this.deps.logger.info('redoing the step a previous run left pending', { jobs: pending.jobIds.length, unfinalizedBlocks: maybeStored.length })
    const before: SettledState = { checkpoint, window, prices }
    const retractions = maybeStored.flatMap((b) => b.retractions)
    if (retractions.length > 0) {
      await this.sendAndSettle([{ type: 'swap_retraction', records: retractions }], before, `redo-${checkpoint.number}-${maybeStored[maybeStored.length - 1]!.hash.slice(2, 18)}`)
    } else {
      this.state = { ...before, pending: null }
      await this.store.save(this.state)
    }
  }

  private pricesAtCheckpoint(): UsdPrices {
    const { config } = this.deps
    return new UsdPrices(config.weth, new Set(config.stablecoins), config.minLiquidityUsd, (t) => {
      const d = this.metadata.known(t)?.record?.decimals
      return d === undefined ? undefined : Number(d)
    }, this.state.prices)
  }

  async stop(): Promise<void> {
    this.stopping = true
    this.deps.rpc.halt()
    this.wake?.()
    await this.loop
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      try {
        const idle = await this.step()
        if (idle) await this.sleep(this.deps.config.pollMs)
      } catch (err) {
        if (err instanceof FollowerStopped || this.stopping) break
        // Done again from the checkpoint as after a restart, steps in flight included: with
        // the prices of that moment, and holdings read again (the failed steps' records may
        // never have been stored).
        this.inFlight = []
        this.prices = this.pricesAtCheckpoint()
        this.finalized.forget()
        this.deps.logger.error('follower step failed: retrying', { err })
        await this.sleep(1_000)
      }
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.wake = null
        resolve()
      }, ms)
      this.wake = () => {
        clearTimeout(t)
        resolve()
      }
    })
  }

  /** One step; true when there was nothing new. */
  private async step(): Promise<boolean> {
    const { rpc, config } = this.deps
    const head = await rpc.head()
    const finalHead = head - config.finalityDepth
    const cp = this.state.checkpoint
    if (cp.number < 0 && cp.hash === null && this.state.window.length === 0) {
      const from = this.deps.fromBlock ?? config.fromBlock ?? Math.max(0, finalHead)
      this.state.checkpoint = { number: from - 1, hash: null }
    }
    const next = (this.inFlight.at(-1)?.to ?? this.state.checkpoint.number) + 1
    if (this.state.window.length === 0 && next <= finalHead) {
      await this.historyStep(next, finalHead, head)
      return false
    }
    while (this.inFlight.length > 0) await this.settleOldest()
    return this.liveStep(this.state.checkpoint.number + 1, head)
  }

  /**
   * A finalized range. Its records are sent without waiting for the acknowledgement of the
   * steps before it (up to HISTORY_STEPS_IN_FLIGHT of them), and the steps settle in order:
   * the checkpoint is always the newest block below which every step is acknowledged.
   */
  private async historyStep(from: number, finalHead: number, head: number): Promise<void> {
    const { to, logs, blocks } = await this.history.take(from, finalHead)
    const extraction = await extractSwaps(logs, this.extractionDeps(), blocks)
    const [header] = await this.deps.rpc.headers([to])
    if (!header) throw new Error(`block ${to} not found below the finalized head`)
    const final = await this.finalized.of([{ prices: [...extraction.prices.values()].flat(), traded: [...tradedByBlock(extraction.swaps).values()].flat() }], finalHead)
    const next: SettledState = { checkpoint: { number: to, hash: header.hash }, window: [], prices: this.prices.snapshot() }
    while (this.inFlight.length >= HISTORY_STEPS_IN_FLIGHT) await this.settleOldest()
    const jobIds = await this.send(stepRecords(extraction, final), next, `${from}-${to}`)
    const acknowledged = waitForJobs(this.deps.producer.queue, jobIds, () => this.stopping)
    acknowledged.catch(() => undefined) // met by settleOldest
    this.inFlight.push({
      to,
      jobIds,
      next,
      acknowledged,
      count: async () => {
        this.stats.blocks += to - from + 1
        await this.countStep(extraction, final)
        this.deps.onProgress?.({ mode: 'history', block: to, head, stats: this.stats.snapshot() })
      },
    })
  }

  /**
   * Waits for the oldest step in flight to be acknowledged and settles it: its state becomes
   * the checkpoint, and the pending record keeps the steps still in flight. If it failed,
   * the steps after it are dropped too (the run loop does them again from the checkpoint).
   */
  private async settleOldest(): Promise<void> {
    const step = this.inFlight[0]!
    try {
      await step.acknowledged
    } catch (err) {
      this.inFlight = []
      throw err
    }
    this.inFlight.shift()
    const rest = this.inFlight
    const settled: FollowerState = { ...step.next, pending: rest.length > 0 ? { jobIds: rest.flatMap((r) => r.jobIds), next: rest.at(-1)!.next } : null }
    await this.store.save(settled)
    this.state = settled
    await step.count()
  }

  private async liveStep(next: number, head: number): Promise<boolean> {
    const { rpc, config } = this.deps
    const cp = this.state.checkpoint
    const to = Math.min(head, next + LIVE_STEP_BLOCKS - 1)
    const numbers: number[] = []
    for (let n = Math.max(cp.number, 0); n <= to; n++) numbers.push(n)
    const headers = await rpc.headers(numbers)
    const byNumber = new Map<number, BlockHeader | null>(numbers.map((n, i) => [n, headers[i] ?? null]))
    if (cp.hash !== null && byNumber.get(cp.number)?.hash !== cp.hash) {
      await this.retractToAncestor(head)
      return false
    }
    const finalHead = head - config.finalityDepth
    if (next > head) {
      await this.finalizeWindow(finalHead)
      return true
    }
    // The new blocks must chain onto the checkpoint; otherwise the chain moved while we read.
    let parent = cp.hash
    const fresh: BlockHeader[] = []
    for (let n = next; n <= to; n++) {
      const h = byNumber.get(n)
      if (!h || (parent !== null && h.parentHash !== parent)) return false
      fresh.push(h)
      parent = h.hash
    }
    // The window's blocks that are final now send their price and holding records with this
    // step's swaps (one acknowledgement wait, not two); their balances are read meanwhile.
    const base: WindowBlock[] =
      this.state.window.length === 0 && cp.hash !== null ? [{ number: cp.number, hash: cp.hash, retractions: [] }] : this.state.window
    const finalizing = this.finalized.of(base.filter((b) => b.number <= finalHead), finalHead)
    finalizing.catch(() => undefined) // awaited below; a step that ends early drops it
    const logs = await rpc.logs(next, to)
    const hashes = new Map(fresh.map((h) => [h.number, h.hash]))
    if (logs.some((l) => hashes.get(Number(l.blockNumber)) !== l.blockHash)) return false
    const blocks = await rpc.blocksWithSenders(swapLogBlocks(logs))
    for (const h of fresh) blocks.times.set(h.hash, h.timestamp)
    const extraction = await extractSwaps(logs, this.extractionDeps(), blocks)
    const final = await finalizing
    const retractions = new Map<string, WindowBlock['retractions']>()
    for (const s of extraction.swaps) {
      const list = retractions.get(s.blockHash) ?? []
      list.push(retractionOf(s, this.chainId))
      retractions.set(s.blockHash, list)
    }
    const traded = config.holdings.wallets === 'off' ? new Map<string, Array<[string, string]>>() : tradedByBlock(extraction.swaps)
    const added: WindowBlock[] = fresh.map((h) => ({
      number: h.number,
      hash: h.hash,
      retractions: retractions.get(h.hash) ?? [],
      prices: extraction.prices.get(h.hash) ?? [],
      traded: traded.get(h.hash) ?? [],
    }))
    // A new block already final (a follower catching up) keeps its records for the next step.
    const window = [
      ...base.filter((b) => b.number > finalHead),
      ...added.filter((b, i) => b.number > finalHead || i === added.length - 1 || hasFinalityWork(b)),
    ]
    const last = fresh[fresh.length - 1]!
    await this.sendAndSettle(stepRecords(extraction, final), { checkpoint: { number: last.number, hash: last.hash }, window, prices: this.prices.snapshot() }, `${next}-${last.hash.slice(2, 18)}`)
    this.stats.blocks += fresh.length
    await this.countStep(extraction, final)
    this.deps.onProgress?.({ mode: 'live', block: last.number, head, stats: this.stats.snapshot() })
    return false
  }

  /** When idle: sends the records of the window's blocks that are final, then drops those blocks. */
  private async finalizeWindow(finalHead: number): Promise<void> {
    const window = this.state.window
    const stays = (b: WindowBlock, i: number) => b.number > finalHead || i === window.length - 1
    const final = window.filter((b, i) => !stays(b, i))
    if (final.length === 0) return
    const records = await this.finalized.of(final, finalHead)
    const next: SettledState = { checkpoint: this.state.checkpoint, window: window.filter(stays), prices: this.prices.snapshot() }
    await this.sendAndSettle(
      [
        { type: 'price', records: records.prices },
        { type: 'holding', records: records.holdings },
      ],
      next,
      `final-${final[0]!.number}-${final[final.length - 1]!.hash.slice(2, 18)}`,
    )
    this.stats.prices += records.prices.length
    this.stats.holdings += records.holdings.length
  }

  /** The checkpoint's block is no longer canonical: retract back to the newest window block that still is. */
  private async retractToAncestor(head: number): Promise<void> {
    const { rpc, logger } = this.deps
    const window = this.state.window
    const canonical = await rpc.headers(window.map((b) => b.number))
    let keep = -1
    for (let i = window.length - 1; i >= 0; i--) {
      if (canonical[i]?.hash === window[i]!.hash) {
        keep = i
        break
      }
    }
    if (keep < 0) {
      throw new Error(
        `reorg deeper than the unfinalized window (${window.length} blocks from ${window[0]?.number ?? this.state.checkpoint.number}): raise FINALITY_DEPTH`,
      )
    }
    const ancestor = window[keep]!
    const orphaned = window.slice(keep + 1)
    const retractions = orphaned.flatMap((b) => b.retractions)
    logger.warn('reorg: retracting the orphaned blocks', {
      ancestor: ancestor.number,
      orphaned: orphaned.map((b) => b.number),
      swaps: retractions.length,
      head,
    })
    const next: SettledState = { checkpoint: { number: ancestor.number, hash: ancestor.hash }, window: window.slice(0, keep + 1), prices: this.prices.snapshot() }
    await this.sendAndSettle([{ type: 'swap_retraction', records: retractions }], next, `reorg-${ancestor.number}-${orphaned[orphaned.length - 1]?.hash.slice(2, 18) ?? 'x'}`)
    this.stats.reorgs++
    this.stats.retracted += retractions.length
  }

  /** Counters of a settled step (the synchronous ones in the turn it settled). */
  private async countStep(extraction: Extraction, final: FinalRecords): Promise<void> {
    this.stats.swapLogs += extraction.swapLogs
    this.stats.swaps += extraction.swaps.length
    this.stats.tokens += extraction.tokens.length
    this.stats.prices += final.prices.length
    this.stats.holdings += final.holdings.length
    await this.stats.recordUnnetted(extraction.unnetted)
  }

  /** USD value of a raw balance at the token's current price (cents), or null when its price or decimals are unknown. */
  private usdValue(token: string, balance: bigint): number | null {
    const price = this.prices.priceOf(token)
    const decimals = this.metadata.known(token)?.record?.decimals
    if (price === undefined || decimals === undefined) return null
    const value = (Number(balance) / 10 ** Number(decimals)) * price
    return Number.isFinite(value) ? Math.round(value * 100) / 100 : null
  }

  /** Write-ahead the state that holds once the jobs are acknowledged, send them, wait, settle. */
  private async sendAndSettle(batches: StepRecords, next: SettledState, tag: string): Promise<void> {
    const jobIds = await this.send(batches, next, tag)
    await waitForJobs(this.deps.producer.queue, jobIds, () => this.stopping)
    // Taken only once saved, and the caller's counters move in the same turn: whoever
    // watches the follower never sees a settled step with its counters behind.
    const settled = { ...next, pending: null }
    await this.store.save(settled)
    this.state = settled
  }

  /**
   * Sends a step's jobs after writing them ahead as pending (with the jobs of the history
   * steps still in flight, and `next`, the state once all of them are acknowledged): a
   * restart does them again from the checkpoint. Returns the job ids (none: nothing to send).
   */
  private async send(batches: StepRecords, next: SettledState, tag: string): Promise<string[]> {
    const source = `follower:${this.chainId}`
    const jobs = batches.filter((b) => b.records.length > 0).map((b) => ({ ...b, jobId: `follow-${this.chainId}-${b.type}-${tag}` }))
    if (jobs.length === 0) return []
    this.state.pending = { jobIds: [...this.inFlight.flatMap((s) => s.jobIds), ...jobs.map((j) => j.jobId)], next }
    await this.store.save(this.state)
    await this.deps.producer.queue.addBulk(jobs.map((j) => ({ name: j.type, data: { type: j.type, records: j.records, source }, opts: { jobId: j.jobId } })))
    return jobs.map((j) => j.jobId)
  }

  private extractionDeps() {
    return { pools: this.pools, metadata: this.metadata, prices: this.prices, priceSlots: this.priceSlots, chainId: this.chainId }
  }
}

type FinalRecords = { prices: FollowedPriceRecord[]; holdings: FollowedHoldingRecord[] }

/** A step's records: its swaps and new tokens, and the price and holding records of the blocks that became final. */
function stepRecords(extraction: Extraction, final: FinalRecords): StepRecords {
  return [
    { type: 'token', records: extraction.tokens },
    { type: 'swap', records: extraction.swaps.map((s) => s.record) },
    { type: 'price', records: final.prices },
    { type: 'holding', records: final.holdings },
  ]
}
