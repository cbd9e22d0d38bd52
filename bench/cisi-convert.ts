/**
 * Converts the CISI collection (SMART format) into a folder Chunkpad can index plus BEIR-style
 * queries and qrels:
 *
 *   npx tsx bench/cisi-convert.ts ../shared/ir/cisi /tmp/cisi-beir
 *
 * Output: docs/{id}.md ("# title", blank line, abstract), queries.jsonl ({"_id","text"}),
 * qrels.tsv (query-id, corpus-id, score with a header line). Corpus ids are the document ids,
 * so a search hit on docs/42.md is corpus-id "42".
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { parseSmartDocuments, parseSmartQueries, parseSmartRelevance } from "../src/search/smart-format.js";

function main(argv: string[]): number {
  const [sourceDirectory, outputDirectory] = argv;
  if (!sourceDirectory || !outputDirectory) {
    process.stderr.write("usage: npx tsx bench/cisi-convert.ts <cisi folder> <output folder>\n");
    return 2;
  }
  const read = (name: string): string => fs.readFileSync(path.join(sourceDirectory, name), "utf8");
  const documents = parseSmartDocuments(read("CISI.ALL"));
  const queries = parseSmartQueries(read("CISI.QRY"));
  const qrels = parseSmartRelevance(read("CISI.REL"));

  const documentsDirectory = path.join(outputDirectory, "docs");
  fs.mkdirSync(documentsDirectory, { recursive: true });
  for (const document of documents) {
    const markdown = `# ${document.title}\n\n${document.text}\n`;
    fs.writeFileSync(path.join(documentsDirectory, `${document.id}.md`), markdown);
  }

  const queryLines = [...queries].map(([id, text]) => JSON.stringify({ _id: id, text }));
  fs.writeFileSync(path.join(outputDirectory, "queries.jsonl"), `${queryLines.join("\n")}\n`);

  const qrelLines = ["query-id\tcorpus-id\tscore"];
  for (const [queryId, judgments] of qrels) {
    for (const [documentId, grade] of judgments) qrelLines.push(`${queryId}\t${documentId}\t${grade}`);
  }
  fs.writeFileSync(path.join(outputDirectory, "qrels.tsv"), `${qrelLines.join("\n")}\n`);

  process.stdout.write(
    `${documents.length} documents, ${queries.size} queries (${qrels.size} judged), ` +
      `${qrelLines.length - 1} judgments → ${outputDirectory}\n`,
  );
  return 0;
}

process.exitCode = main(process.argv.slice(2));
