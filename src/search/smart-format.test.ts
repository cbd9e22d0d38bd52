import { describe, expect, it } from "vitest";
import { parseSmartDocuments, parseSmartQueries, parseSmartRecords, parseSmartRelevance } from "./smart-format.js";

const ALL = `.I 1
.T
18 Editions of the Dewey Decimal Classifications
.A
Comaromi, J.P.
.W
   The present study is a history of the DEWEY Decimal
Classification.
.X
1	5	1
92	1	1
.I 2
.T 
Use Made of Technical
Libraries
.A 
Slater, M.
.A
Jones, K.
.W
This report is an analysis of 6300 acts of use.
.Net figures are not a marker.
.X
2	1	2
`;

describe("parseSmartDocuments", () => {
  it("reads id, title, authors and text of each record", () => {
    expect(parseSmartDocuments(ALL)).toEqual([
      {
        id: "1",
        title: "18 Editions of the Dewey Decimal Classifications",
        authors: ["Comaromi, J.P."],
        text: "The present study is a history of the DEWEY Decimal\nClassification.",
      },
      {
        id: "2",
        title: "Use Made of Technical Libraries",
        authors: ["Slater, M.", "Jones, K."],
        text: "This report is an analysis of 6300 acts of use.\n.Net figures are not a marker.",
      },
    ]);
  });

  it("keeps other fields in the record, CRLF line ends included", () => {
    const [record] = parseSmartRecords(ALL.replaceAll("\n", "\r\n"));
    expect(record?.fields.get("X")).toEqual(["1\t5\t1\n92\t1\t1"]);
  });
});

describe("parseSmartQueries", () => {
  it("joins the .W text into one line and falls back to .T", () => {
    const queries = parseSmartQueries(".I 1\n.W\nWhat problems\nare there?\n.I 2\n.T\nOnly a title\n.A\nSomeone\n.I 3\n.T\nTitle\n.W\nBody text\n.B\nSource\n");
    expect(queries).toEqual(new Map([["1", "What problems are there?"], ["2", "Only a title"], ["3", "Body text"]]));
  });
});

describe("parseSmartRelevance", () => {
  it("reads every listed pair as relevant", () => {
    const qrels = parseSmartRelevance("     1     28\t0\t0.000000\n     1     35\t0\t0.000000\n    2 7 0 0\n\n");
    expect(qrels).toEqual(new Map([["1", new Map([["28", 1], ["35", 1]])], ["2", new Map([["7", 1]])]]));
  });
});
