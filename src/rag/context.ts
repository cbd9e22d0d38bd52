import { countTokens } from "../chunking/tokens.js";
import type { ChunkRef, ScoredChunk } from "../core/types.js";
import { neutralizeCitations } from "./citations.js";

/** One chunk as the answer's context labels it: [C1] → file, page, chunk reference. */
export interface CitationLabel {
  /** "C1", "C2", ... (cited in answers as [C1]). */
  label: string;
  ref: ChunkRef;
  /** Source file path, relative to its folder. */
  source: string;
  title?: string;
  page?: number;
  pageEnd?: number;
  slide?: number;
  sheet?: string;
  section?: string;
}

export interface AnswerContext {
  labels: CitationLabel[];
  /** The labeled excerpts, ready to put in a prompt. */
  text: string;
  /** Tokens the excerpts take (the labels and headers included). */
  tokens: number;
  /** Included chunks left out because the budget was reached (the lowest scored), best first. */
  droppedForBudget: ChunkRef[];
}

export interface ContextOptions {
  /** The most tokens the excerpts may take; the best-scored chunk is always kept. */
  budgetTokens?: number;
  /** Token counter; defaults to cl100k_base, close enough for a budget with any model. */
  countTokens?: (text: string) => number;
}

export const DEFAULT_CONTEXT_BUDGET_TOKENS = 6_000;

/** cl100k tokens, with text like "<|endoftext|>" counted as plain text. */
export function countContextTokens(text: string): number {
  return countTokens(text);
}

/** "page 3", "pages 3–4", "slide 2", "sheet Budget": where in the source, for people. */
export function describeLocation(label: Omit<CitationLabel, "label" | "ref" | "source">): string | undefined {
  if (label.page !== undefined) {
    return label.pageEnd !== undefined && label.pageEnd !== label.page ? `pages ${label.page}–${label.pageEnd}` : `page ${label.page}`;
  }
  if (label.slide !== undefined) return `slide ${label.slide}`;
  if (label.sheet !== undefined) return `sheet ${label.sheet}`;
  return undefined;
}

function labelFor(result: ScoredChunk, position: number): CitationLabel {
  const { chunk } = result;
  const label: CitationLabel = { label: `C${position}`, ref: chunk.ref, source: chunk.relativePath };
  if (chunk.title) label.title = chunk.title;
  if (chunk.page !== undefined) label.page = chunk.page;
  if (chunk.pageEnd !== undefined) label.pageEnd = chunk.pageEnd;
  if (chunk.slide !== undefined) label.slide = chunk.slide;
  if (chunk.sheet !== undefined) label.sheet = chunk.sheet;
  if (chunk.section) label.section = chunk.section;
  return label;
}

function headerFor(label: CitationLabel): string {
  const parts = [label.source, describeLocation(label), label.section ? `section "${label.section}"` : undefined];
  return `[${label.label}] Source: ${neutralize(parts.filter((part) => part !== undefined).join(", "))}`;
}

/**
 * Words the prompt itself puts at the start of a line ("Question:" after the context, "Source:"
 * in each excerpt's header) and the role names chat formats use. A document line starting with
 * one is quoted, so a document cannot start a question or a turn of its own.
 */
const PROMPT_MARKER_LINE = /^([ \t]*)((?:question|answer|context|source|rules|system|user|assistant|human|excerpt)[ \t]*:)/gim;

/**
 * Keeps a document from forging the prompt's structure: it cannot close the context block,
 * label an excerpt ("[C2]" reads "⟦C2⟧", see neutralizeCitations) or start a line with one of
 * the prompt's own markers ("Question:" reads "> Question:"). The text stays readable.
 */
export function neutralize(content: string): string {
  return neutralizeCitations(content.replace(/<\/?context>/gi, (tag) => tag.replace("<", "‹").replace(">", "›"))).replace(PROMPT_MARKER_LINE, "$1> $2");
}

function renderBlock(result: ScoredChunk, label: CitationLabel): string {
  return `${headerFor(label)}\n${neutralize(result.chunk.content.trim())}`;
}

const BLOCK_SEPARATOR = "\n\n";

/**
 * The context for an answer: only the chunks the user left included, labeled [C1]..[Cn] in
 * the order given (the order the user sees them). When the excerpts exceed the budget, the
 * lowest-scored chunks are left out and reported in `droppedForBudget`.
 */
export function buildContext(chunks: readonly ScoredChunk[], options: ContextOptions = {}): AnswerContext {
  const budget = options.budgetTokens ?? DEFAULT_CONTEXT_BUDGET_TOKENS;
  const count = options.countTokens ?? countContextTokens;
  const included = chunks.filter((result) => result.isIncluded);

  // Choose by score (stable: the given order breaks ties), then label in the given order.
  const byScore = included.map((result, index) => ({ result, index })).sort((a, b) => b.result.score - a.result.score || a.index - b.index);
  const kept = new Set<number>();
  const droppedForBudget: ChunkRef[] = [];
  let used = 0;
  for (const { result, index } of byScore) {
    // Measured with a placeholder label: "C12" vs "C3" is noise against a budget.
    const cost = count(renderBlock(result, labelFor(result, index + 1))) + count(BLOCK_SEPARATOR);
    if (droppedForBudget.length === 0 && (kept.size === 0 || used + cost <= budget)) {
      kept.add(index);
      used += cost;
    } else {
      droppedForBudget.push(result.chunk.ref);
    }
  }

  const labels: CitationLabel[] = [];
  const blocks: string[] = [];
  included.forEach((result, index) => {
    if (!kept.has(index)) return;
    const label = labelFor(result, labels.length + 1);
    labels.push(label);
    blocks.push(renderBlock(result, label));
  });
  const text = blocks.join(BLOCK_SEPARATOR);
  return { labels, text, tokens: count(text), droppedForBudget };
}
