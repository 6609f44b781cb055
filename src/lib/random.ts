// Seeded pseudo-random numbers (mulberry32): small, fast and the same sequence everywhere, for data
// that must be generated the same way every run (the benchmark seed, property tests). Not for secrets.
export type Rng = () => number;

export function seededRandom(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
