// Which of comma, semicolon and tab separates the cells, told from the first
// records: the candidate that appears the same number of times (outside quotes)
// on the most lines wins. Excel's "sep=;" first line, when present, decides.

export type Delimiter = "," | ";" | "\t";

export const DELIMITER_NAMES: Record<Delimiter, string> = { ",": "comma", ";": "semicolon", "\t": "tab" };

const CANDIDATES: Delimiter[] = [",", ";", "\t"];
const SAMPLE_RECORDS = 20;

export interface DetectedDelimiter {
  delimiter: Delimiter;
  /** Excel's `sep=` line: the first line is not the header and is skipped. */
  sepLine: boolean;
}

export function detectDelimiter(text: string): DetectedDelimiter {
  const sep = /^sep=(.)\r?\n/i.exec(text);
  if (sep && (CANDIDATES as string[]).includes(sep[1]!)) {
    return { delimiter: sep[1] as Delimiter, sepLine: true };
  }
  const counts = countPerRecord(text);
  let best: { delimiter: Delimiter; score: number; width: number } | undefined;
  for (const delimiter of CANDIDATES) {
    const perLine = counts.map((c) => c[delimiter]);
    const width = mode(perLine);
    if (width === 0) continue;
    const score = perLine.filter((n) => n === width).length;
    if (!best || score > best.score || (score === best.score && width > best.width)) {
      best = { delimiter, score, width };
    }
  }
  return { delimiter: best?.delimiter ?? ",", sepLine: false };
}

/** Counts candidates outside quotes, record by record (a quoted newline does not end a record). */
function countPerRecord(text: string): Array<Record<Delimiter, number>> {
  const records: Array<Record<Delimiter, number>> = [];
  let current = { ",": 0, ";": 0, "\t": 0 };
  let quoted = false;
  let empty = true;
  for (let i = 0; i < text.length && records.length < SAMPLE_RECORDS; i++) {
    const ch = text[i]!;
    if (ch === '"') quoted = !quoted;
    else if (quoted) continue;
    else if (ch === "\n" || ch === "\r") {
      if (ch === "\r" && text[i + 1] === "\n") i++;
      // Blank lines say nothing about the delimiter.
      if (!empty) records.push(current);
      current = { ",": 0, ";": 0, "\t": 0 };
      empty = true;
      continue;
    } else if (ch === "," || ch === ";" || ch === "\t") current[ch]++;
    empty = false;
  }
  if (!empty || records.length === 0) records.push(current);
  return records;
}

function mode(values: number[]): number {
  const seen = new Map<number, number>();
  let best = 0;
  let bestCount = 0;
  for (const v of values) {
    const n = (seen.get(v) ?? 0) + 1;
    seen.set(v, n);
    if (n > bestCount || (n === bestCount && v > best)) {
      best = v;
      bestCount = n;
    }
  }
  return best;
}
