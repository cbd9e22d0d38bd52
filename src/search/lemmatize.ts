/**
 * A small, conservative rule-based English lemmatizer for query words: plurals, -ing, -ed
 * and common irregular forms. It stands in for the NLTagger lemmas TakeNote uses.
 *
 * Conservative on purpose: the lemma becomes a prefix query ("run"*) that FTS5's porter
 * tokenizer stems again, so a lemma that is a little short ("mak" for "making") still finds
 * the word, while a wrong one ("new" for "news") would find the wrong words. When a rule is
 * unsure, the word is returned unchanged. Only plain lower-case ASCII words are touched.
 */

const IRREGULAR_FORMS: ReadonlyMap<string, string> = new Map(
  Object.entries({
    // be, have, do, go
    am: "be", is: "be", are: "be", was: "be", were: "be", been: "be", being: "be",
    has: "have", had: "have", having: "have",
    does: "do", did: "do", done: "do", doing: "do",
    goes: "go", went: "go", gone: "go", going: "go",
    // common irregular verbs
    ran: "run", made: "make", said: "say", says: "say", took: "take", taken: "take",
    gave: "give", given: "give", got: "get", gotten: "get", came: "come", knew: "know",
    known: "know", thought: "think", found: "find", told: "tell", became: "become",
    felt: "feel", brought: "bring", began: "begin", begun: "begin", kept: "keep",
    held: "hold", wrote: "write", written: "write", stood: "stand", heard: "hear",
    meant: "mean", met: "meet", paid: "pay", sent: "send", built: "build", spent: "spend",
    understood: "understand", spoke: "speak", spoken: "speak", chose: "choose",
    chosen: "choose", ate: "eat", eaten: "eat", fell: "fall", fallen: "fall", drove: "drive",
    driven: "drive", grew: "grow", grown: "grow", drew: "draw", drawn: "draw", threw: "throw",
    thrown: "throw", flew: "fly", flown: "fly", caught: "catch", taught: "teach",
    bought: "buy", sold: "sell", fought: "fight", sought: "seek", forgot: "forget",
    forgotten: "forget", broke: "break", broken: "break", ridden: "ride", rode: "ride",
    sang: "sing", sung: "sing", swam: "swim", swum: "swim", sat: "sit", slept: "sleep",
    lost: "lose", led: "lead", won: "win", shown: "show", seen: "see", saw: "see",
    dying: "die", died: "die", lying: "lie", lied: "lie", tying: "tie", tied: "tie",
    // irregular plurals
    children: "child", men: "man", women: "woman", people: "person", mice: "mouse",
    feet: "foot", teeth: "tooth", geese: "goose", lives: "life", wives: "wife",
    knives: "knife", leaves: "leaf", halves: "half", selves: "self", shelves: "shelf",
    wolves: "wolf", indices: "index", matrices: "matrix", vertices: "vertex",
    analyses: "analysis", theses: "thesis", crises: "crisis", hypotheses: "hypothesis",
    criteria: "criterion", phenomena: "phenomenon", data: "data",
  }),
);

/** Words that look inflected but are not (or whose stem would mislead). */
const UNCHANGED_WORDS: ReadonlySet<string> = new Set([
  "news", "lens", "bias", "atlas", "canvas", "alias", "chaos", "always", "perhaps",
  "whereas", "towards", "afterwards", "besides", "series", "species", "thus", "yes", "plus",
  "physics", "mathematics", "economics", "politics", "ethics", "electronics", "aids",
  "means", "headquarters", "whereabouts", "lyrics", "hundred", "sacred", "naked", "wicked",
  "kindred", "beloved", "rugged", "ragged", "crooked", "morning", "evening", "nothing",
  "something", "anything", "everything", "ceiling", "wedding", "pudding", "during",
  "thing", "things", "king", "ring", "sing", "bring", "string", "spring", "wing", "sting",
  "swing", "ping", "bed", "red", "shed", "speed", "need", "feed", "seed", "weed", "bleed",
]);

const VOWELS = "aeiou";

function isConsonantAt(word: string, index: number): boolean {
  const letter = word[index];
  if (letter === undefined) return false;
  if (VOWELS.includes(letter)) return false;
  if (letter === "y") return index === 0 || !isConsonantAt(word, index - 1);
  return true;
}

/** Porter's measure m: the number of vowel-consonant sequences in the stem. */
function measure(stem: string): number {
  let count = 0;
  let previousWasVowel = false;
  for (let index = 0; index < stem.length; index += 1) {
    const consonant = isConsonantAt(stem, index);
    if (consonant && previousWasVowel) count += 1;
    previousWasVowel = !consonant;
  }
  return count;
}

function hasVowel(stem: string): boolean {
  for (let index = 0; index < stem.length; index += 1) {
    if (!isConsonantAt(stem, index)) return true;
  }
  return false;
}

/** consonant-vowel-consonant ending, the last consonant not w, x or y ("hop", "mak"). */
function endsConsonantVowelConsonant(stem: string): boolean {
  const last = stem.length - 1;
  if (last < 2) return false;
  const lastLetter = stem[last] ?? "";
  return (
    isConsonantAt(stem, last) &&
    !isConsonantAt(stem, last - 1) &&
    isConsonantAt(stem, last - 2) &&
    !"wxy".includes(lastLetter)
  );
}

/** Restores what -ing / -ed took away: "runn" → "run", "mak" → "make", "creat" → "create". */
function repairVerbStem(stem: string): string {
  const last = stem[stem.length - 1] ?? "";
  // Only when a real stem remains: "runn" → "run", but "add" stays "add".
  if (stem.length >= 4 && last === stem[stem.length - 2] && !"lsz".includes(last) && !VOWELS.includes(last)) {
    return stem.slice(0, -1);
  }
  if (stem.endsWith("at") || stem.endsWith("bl") || stem.endsWith("iz")) return `${stem}e`;
  if (measure(stem) === 1 && endsConsonantVowelConsonant(stem)) return `${stem}e`;
  return stem;
}

function lemmatizePlural(word: string): string | undefined {
  if (word.endsWith("ies") && word.length > 4) return `${word.slice(0, -3)}y`;
  if (word.endsWith("sses")) return word.slice(0, -2);
  if (/(?:x|zz|ch|sh)es$/.test(word)) return word.slice(0, -2);
  if (word.endsWith("s") && !/(?:ss|us|is)$/.test(word)) return word.slice(0, -1);
  return undefined;
}

function lemmatizeVerb(word: string): string | undefined {
  if (word.endsWith("ing")) {
    const stem = word.slice(0, -3);
    if (stem.length < 3 || !hasVowel(stem)) return undefined;
    return repairVerbStem(stem);
  }
  if (word.endsWith("ied") && word.length > 4) return `${word.slice(0, -3)}y`;
  if (word.endsWith("ed") && !word.endsWith("eed")) {
    const stem = word.slice(0, -2);
    if (stem.length < 3 || !hasVowel(stem)) return undefined;
    return repairVerbStem(stem);
  }
  return undefined;
}

/** The dictionary form of a lower-case English word, or the word itself when unsure. */
export function lemmatize(word: string): string {
  if (!/^[a-z]+$/.test(word)) return word;
  const irregular = IRREGULAR_FORMS.get(word);
  if (irregular !== undefined) return irregular;
  if (word.length <= 3 || UNCHANGED_WORDS.has(word)) return word;
  return lemmatizeVerb(word) ?? lemmatizePlural(word) ?? word;
}
