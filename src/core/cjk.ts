/**
 * Chinese and Japanese are written without spaces between words, and FTS5's unicode61
 * tokenizer splits only at spaces and punctuation: a whole sentence would be one token that no
 * query matches. Runs of Han, Hiragana and Katakana are cut into words with the ICU word
 * segmenter built into Node (Intl.Segmenter, dictionary-based for these scripts) at index time
 * and at query time alike. Korean is written with spaces already.
 */

const CJK_CHARACTER = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー々〆]+/gu;

let segmenter: Intl.Segmenter | undefined;

export function hasCjk(text: string): boolean {
  return CJK_CHARACTER.test(text);
}

/** The words of a run of CJK text, in order ("東京都に住む" → 東京, 都, に, 住む). */
export function cjkWords(run: string): string[] {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: "word" });
  return [...segmenter.segment(run)].map((piece) => piece.segment.trim()).filter((piece) => piece !== "");
}

/** Text with a space between the words of every CJK run; other text is returned as it is. */
export function spaceCjkWords(text: string): string {
  if (!hasCjk(text)) return text;
  return text.replace(CJK_RUN, (run) => ` ${cjkWords(run).join(" ")} `);
}
