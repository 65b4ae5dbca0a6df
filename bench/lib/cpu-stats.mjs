// The arithmetic of bench/api-cpu: CPU per request of each configuration over interleaved rounds, the ratio of two
// configurations from their paired rounds with a bootstrap confidence interval, and the verdict against a ceiling.
// Rounds are paired because each round of the two ran within the same second or so: a change in the machine's
// load falls on both, and their ratio cancels it where their own figures do not.

/** The median of `xs` (the mean of the two middle values when their number is even); NaN when empty. */
export function median(xs) {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** The `q` quantile (0 to 1) of `xs`, interpolated between the two nearest ranks; NaN when empty. */
export function quantile(xs, q) {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const at = q * (s.length - 1);
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return s[lo] + (s[hi] - s[lo]) * (at - lo);
}

/** A seeded generator of numbers in [0, 1) (mulberry32): the same seed, the same interval on every run. */
export function seededRandom(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Per round, µs of CPU per request: `cpuNs` (ns over the round) and `requests` (answered in it), index by index. */
export function perRequestUs(cpuNs, requests) {
  return cpuNs.map((ns, i) => ns / 1000 / requests[i]);
}

/**
 * The ratio of configuration `b` to `a` (their µs per request, round by round): the median of the rounds' ratios
 * and its `level` bootstrap interval. The rounds came from `sets` sets of servers, one after the other in equal
 * numbers; each draw takes that many sets with replacement, then as many rounds from each as it had, with
 * replacement, and the interval lies between the (1 - level) / 2 and (1 + level) / 2 quantiles of the draws'
 * medians. Drawing the sets too puts each set's own luck (a process's compiled code, its heap) in the interval,
 * which rounds drawn alone leave out. A round with no requests is left out.
 */
export function pairedRatio(a, b, { level = 0.95, resamples = 4000, seed = 1, sets = 1 } = {}) {
  if (a.length !== b.length) throw new Error(`paired rounds differ in number: ${a.length} and ${b.length}`);
  const all = a.map((x, i) => b[i] / x);
  const size = Math.ceil(all.length / sets);
  const groups = Array.from({ length: sets }, (_, g) =>
    all.slice(g * size, (g + 1) * size).filter(Number.isFinite),
  ).filter((g) => g.length > 0);
  const ratios = groups.flat();
  const random = seededRandom(seed);
  const pick = (xs) => xs[Math.floor(random() * xs.length)];
  const medians = [];
  for (let r = 0; r < resamples && ratios.length > 0; r++) {
    const draw = [];
    for (let g = 0; g < groups.length; g++) {
      const group = pick(groups);
      for (let i = 0; i < group.length; i++) draw.push(pick(group));
    }
    medians.push(median(draw));
  }
  return {
    ratio: median(ratios),
    low: quantile(medians, (1 - level) / 2),
    high: quantile(medians, (1 + level) / 2),
    rounds: ratios.length,
  };
}

/**
 * The verdict of a ratio against a ceiling of `ceiling` more (0.03: 3%): PASS when the whole interval is at or
 * under it, FAIL when the whole interval is over it, UNDECIDED when the interval holds it (more rounds narrow it).
 */
export function verdict({ low, high }, ceiling) {
  if (high <= 1 + ceiling) return 'PASS';
  if (low > 1 + ceiling) return 'FAIL';
  return 'UNDECIDED';
}

/** `ratio` as a percentage more (or less) than 1, e.g. 1.0234 → "+2.3%". */
export function percentMore(ratio) {
  const p = (ratio - 1) * 100;
  return `${p >= 0 ? '+' : ''}${p.toFixed(1)}%`;
}

/** The order of the configurations in round `round` (0-based): each starts a round in turn, so none is always first. */
export function roundOrder(names, round) {
  const k = round % names.length;
  return [...names.slice(k), ...names.slice(0, k)];
}

/**
 * The ratio of `b`'s mean to `a`'s (µs per request of rounds of the same size): every round counted, the rare
 * rounds that a garbage collection or a burst of compiling made dearer too, which the median of the rounds' ratios
 * leaves aside.
 */
export function meanRatio(a, b) {
  const mean = (xs) => xs.reduce((s, x) => s + x, 0) / xs.length;
  return mean(b) / mean(a);
}
