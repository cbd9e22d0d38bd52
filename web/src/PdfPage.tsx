import { useEffect, useRef, useState } from "react";
import * as pdfjs from "pdfjs-dist";
import workerUrl from "pdfjs-dist/build/pdf.worker.min.mjs?url";

pdfjs.GlobalWorkerOptions.workerSrc = workerUrl;

/** Words as the highlight compares them: lower case, letters and digits only. */
function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * One page of the cited PDF, drawn with pdf.js from the server's copy of the document, with the
 * text runs of the cited chunk marked: a run of three words or more is marked when its words
 * occur, in order, in the chunk's text.
 */
export function PdfPage({ documentId, page, chunkText, label }: { documentId: string; page: number; chunkText: string; label: string }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const [state, setState] = useState<{ highlighted: number; error: string | null }>({ highlighted: 0, error: null });
  useEffect(() => {
    let cancelled = false;
    const task = pdfjs.getDocument({ url: `/api/documents/${encodeURIComponent(documentId)}/source`, isEvalSupported: false });
    void (async () => {
      try {
        const pdf = await task.promise;
        const pdfPage = await pdf.getPage(page);
        const viewport = pdfPage.getViewport({ scale: 1.3 });
        const target = canvas.current;
        if (!target || cancelled) return;
        target.width = viewport.width;
        target.height = viewport.height;
        const context = target.getContext("2d") as CanvasRenderingContext2D;
        await pdfPage.render({ canvas: target, canvasContext: context, viewport }).promise;
        const haystack = ` ${words(chunkText).join(" ")} `;
        const content = await pdfPage.getTextContent();
        let highlighted = 0;
        context.fillStyle = "rgba(255, 214, 0, 0.4)";
        for (const item of content.items) {
          if (!("str" in item) || !("transform" in item)) continue;
          const run = words(item.str);
          // Runs of a word or two ("trace") would match all over the page: only longer runs count.
          if (run.length < 3 || !haystack.includes(` ${run.join(" ")} `)) continue;
          const [x, y] = viewport.convertToViewportPoint(item.transform[4] as number, item.transform[5] as number);
          const height = Math.hypot(item.transform[2] as number, item.transform[3] as number) * viewport.scale;
          context.fillRect(x as number, (y as number) - height, item.width * viewport.scale, height * 1.2);
          highlighted += 1;
        }
        if (!cancelled) setState({ highlighted, error: null });
      } catch (error) {
        if (!cancelled) setState({ highlighted: 0, error: error instanceof Error ? error.message : String(error) });
      }
    })();
    return () => {
      cancelled = true;
      void task.destroy();
    };
  }, [documentId, page, chunkText]);
  if (state.error) return <p role="alert">The page could not be shown: {state.error}</p>;
  return <canvas ref={canvas} className="pdf-page" role="img" aria-label={label} data-highlighted={state.highlighted} />;
}
