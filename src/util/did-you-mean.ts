// "Did you mean …?": the closest of a few known words to a misspelt one.

/** Levenshtein distance, for "did you mean". */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min((previous[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = row;
  }
  return previous[b.length] ?? 0;
}

/** The closest of `candidates` to a misspelt `word`, when it is close enough to be a typo. */
export function didYouMean(word: string, candidates: readonly string[]): string | undefined {
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const d = distance(word.toLowerCase(), candidate.toLowerCase());
    if (d < (best?.distance ?? Infinity)) best = { candidate, distance: d };
  }
  if (!best) return undefined;
  const allowed = Math.max(1, Math.floor(Math.max(word.length, best.candidate.length) / 3));
  return best.distance <= allowed ? best.candidate : undefined;
}
