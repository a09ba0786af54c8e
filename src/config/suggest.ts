// "Did you mean …?" for a name a person typed (a config key, an OBFLOW_ variable, a command, a flag): the known name
// it most likely meant. Spellings compare as one (`response_type`, `response-type` and `responseType` are the same
// name), then a small edit distance catches a typo. Pure; imports nothing.

const folded = (name: string): string => name.toLowerCase().replace(/[-_.]/g, '');

function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1)
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** The known name `input` most likely means, or undefined when none is close (at most a third of its letters off). */
export function closestName(input: string, known: Iterable<string>): string | undefined {
  const wanted = folded(input);
  let best: { name: string; score: number } | undefined;
  for (const name of known) {
    if (name === input) continue;
    const score = distance(wanted, folded(name));
    if (score <= Math.max(1, Math.floor(wanted.length / 3)) && (best === undefined || score < best.score)) best = { name, score };
  }
  return best?.name;
}

/** ` (did you mean X?)`, or '' when nothing is close. */
export function didYouMean(input: string, known: Iterable<string>): string {
  const name = closestName(input, known);
  return name === undefined ? '' : ` (did you mean ${name}?)`;
}
