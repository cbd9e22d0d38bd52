import type { Link, Nodes, Parent, Root, RootContent, Text } from "mdast";
import type { ReactNode } from "react";
import ReactMarkdown from "react-markdown";
import rehypeSanitize from "rehype-sanitize";
import remarkGfm from "remark-gfm";

const CITATION = /\[(C\d+)\]/g;
const PREFIX = "#cite-";

/** Turns each [C3] of the text (never inside code) into a link the renderer shows as a citation. */
function remarkCitations() {
  const visit = (node: Nodes) => {
    if (!("children" in node)) return;
    const parent = node as Parent;
    parent.children = (parent.children as RootContent[]).flatMap((child): RootContent[] => {
      if (child.type !== "text") {
        visit(child);
        return [child];
      }
      const parts: Array<Text | Link> = [];
      let last = 0;
      for (const match of child.value.matchAll(CITATION)) {
        if (match.index > last) parts.push({ type: "text", value: child.value.slice(last, match.index) });
        parts.push({ type: "link", url: `${PREFIX}${match[1] as string}`, children: [{ type: "text", value: match[1] as string }] });
        last = match.index + match[0].length;
      }
      if (parts.length === 0) return [child];
      if (last < child.value.length) parts.push({ type: "text", value: child.value.slice(last) });
      return parts;
    }) as Parent["children"];
  };
  return (tree: Root) => visit(tree);
}

/**
 * An answer's Markdown (lists, tables, code), sanitized: the model's text never becomes raw
 * HTML. Citations are drawn by `citation`; other links open in a new tab.
 */
export function Markdown({ text, citation }: { text: string; citation: (label: string) => ReactNode }) {
  return (
    <div className="markdown">
      <ReactMarkdown
        remarkPlugins={[remarkGfm, remarkCitations]}
        rehypePlugins={[rehypeSanitize]}
        components={{
          a: ({ href, children }) =>
            href?.startsWith(PREFIX) ? (
              <>{citation(href.slice(PREFIX.length))}</>
            ) : (
              <a href={href} target="_blank" rel="noreferrer noopener">
                {children}
              </a>
            ),
        }}
      >
        {text}
      </ReactMarkdown>
    </div>
  );
}
