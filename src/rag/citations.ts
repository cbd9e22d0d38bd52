import type { CitationLabel } from "./context.js";

/**
 * Citations in an answer: [C1], [c2], [C 2], [C1, C3], [C1; 3], [C1][C2], [C2-C4].
 * A label the context did not have (a [C9] with five chunks) is invalid: flagged, never shown
 * as a real source.
 */

export interface ParsedCitations {
  /** The valid labels cited, in order of first use, each once. */
  used: CitationLabel[];
  /** Labels cited that the context did not have ("C9"), in order of first use, each once. */
  invalid: string[];
}

export interface RenderCitationOptions {
  /** How a valid citation is written; default "[C1]". */
  renderValid?: (label: CitationLabel) => string;
  /** How an invalid one is written; default "[C9?]". */
  renderInvalid?: (label: string) => string;
}

/** Ranges longer than this ("[C1-C999]") are not expanded; their ends are cited. */
const MAX_RANGE_LENGTH = 50;

const BRACKETED = /\[([^[\]\n]{1,120})\]/g;
const ITEM = String.raw`[Cc]?\s*\d{1,4}(?:\s*[-–]\s*[Cc]?\s*\d{1,4})?`;
const CITATION_LIST = new RegExp(String.raw`^\s*[Cc]\s*\d{1,4}(?:\s*[-–]\s*[Cc]?\s*\d{1,4})?(?:\s*(?:,|;|&|and)\s*${ITEM})*\s*$`);

/** The label numbers a bracket's inside cites, or undefined when it is not a citation. */
function citedNumbers(inside: string): number[] | undefined {
  if (!CITATION_LIST.test(inside)) return undefined;
  const numbers: number[] = [];
  for (const item of inside.split(/,|;|&|and/)) {
    const [first, last] = (item.match(/\d+/g) ?? []).map(Number);
    if (first === undefined) continue;
    if (last === undefined) numbers.push(first);
    else if (last >= first && last - first < MAX_RANGE_LENGTH) for (let n = first; n <= last; n += 1) numbers.push(n);
    else numbers.push(first, last);
  }
  return numbers;
}

/**
 * Text from a document with every bracket that would read as a citation ("[C2]", "[c1, C3]")
 * rewritten as "⟦C2⟧": still readable, but neither the model nor parseCitations can take it for
 * a label of the context. A model that copies such a sentence copies "⟦C2⟧", which cites nothing.
 */
export function neutralizeCitations(text: string): string {
  return text.replace(BRACKETED, (whole, inside: string) => (citedNumbers(inside) === undefined ? whole : `⟦${inside}⟧`));
}

function labelsByNumber(labels: readonly CitationLabel[]): Map<number, CitationLabel> {
  const byNumber = new Map<number, CitationLabel>();
  for (const label of labels) {
    const number = Number(label.label.replace(/^C/i, ""));
    if (Number.isInteger(number)) byNumber.set(number, label);
  }
  return byNumber;
}

export function parseCitations(answer: string, labels: readonly CitationLabel[]): ParsedCitations {
  const byNumber = labelsByNumber(labels);
  const used: CitationLabel[] = [];
  const invalid: string[] = [];
  for (const match of answer.matchAll(BRACKETED)) {
    for (const number of citedNumbers(match[1] ?? "") ?? []) {
      const label = byNumber.get(number);
      if (label !== undefined) {
        if (!used.includes(label)) used.push(label);
      } else if (!invalid.includes(`C${number}`)) {
        invalid.push(`C${number}`);
      }
    }
  }
  return { used, invalid };
}

/**
 * The answer with every citation rewritten one label per bracket ("[c1, C9]" → "[C1][C9?]"),
 * so a face can link valid ones and mark invented ones. Other brackets are left alone.
 */
export function renderCitations(answer: string, labels: readonly CitationLabel[], options: RenderCitationOptions = {}): string {
  const byNumber = labelsByNumber(labels);
  const renderValid = options.renderValid ?? ((label: CitationLabel) => `[${label.label}]`);
  const renderInvalid = options.renderInvalid ?? ((label: string) => `[${label}?]`);
  return answer.replace(BRACKETED, (whole, inside: string) => {
    const numbers = citedNumbers(inside);
    if (numbers === undefined) return whole;
    return numbers
      .map((number) => {
        const label = byNumber.get(number);
        return label !== undefined ? renderValid(label) : renderInvalid(`C${number}`);
      })
      .join("");
  });
}
