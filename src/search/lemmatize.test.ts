import { describe, expect, it } from "vitest";
import { lemmatize } from "./lemmatize.js";

describe("lemmatize", () => {
  it.each([
    ["dogs", "dog"],
    ["studies", "study"],
    ["classes", "class"],
    ["boxes", "box"],
    ["churches", "church"],
    ["houses", "house"],
    ["ideas", "idea"],
    ["running", "run"],
    ["making", "make"],
    ["hoping", "hope"],
    ["hopping", "hop"],
    ["opening", "open"],
    ["reading", "read"],
    ["falling", "fall"],
    ["creating", "create"],
    ["walked", "walk"],
    ["stopped", "stop"],
    ["studied", "study"],
    ["based", "base"],
    ["indexed", "index"],
    ["was", "be"],
    ["went", "go"],
    ["children", "child"],
    ["mice", "mouse"],
    ["wrote", "write"],
  ])("%s → %s", (word, lemma) => {
    expect(lemmatize(word)).toBe(lemma);
  });

  it.each(["news", "bus", "status", "analysis", "class", "thing", "string", "morning", "need", "speed", "hundred", "used", "add", "data"])(
    "leaves %s alone",
    (word) => {
      expect(lemmatize(word)).toBe(word);
    },
  );

  it("touches only plain lower-case ASCII words", () => {
    expect(lemmatize("Dogs")).toBe("Dogs");
    expect(lemmatize("café")).toBe("café");
    expect(lemmatize("2024s")).toBe("2024s");
    expect(lemmatize("")).toBe("");
  });
});
