/** "did you mean status?" for `zipfs stauts`: the closest known word within two edits (a swap counts as one). */
function distance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      rows[i]![j] = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        rows[i]![j] = Math.min(rows[i]![j]!, rows[i - 2]![j - 2]! + 1);
    }
  }
  return rows[a.length]![b.length]!;
}

export function didYouMean(word: string, known: string[]): string | undefined {
  let best: { word: string; distance: number } | undefined;
  for (const candidate of known) {
    const d = candidate.startsWith(word) && word.length >= 2 ? 1 : distance(word, candidate);
    if (d <= 2 && (!best || d < best.distance)) best = { word: candidate, distance: d };
  }
  return best?.word;
}
