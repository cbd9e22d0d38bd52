import type { Page } from "playwright-core";

/**
 * Layout problems a user would see, measured from the boxes the browser laid out:
 * - overflow: the page scrolls sideways, or an element sticks out of the window;
 * - clipped: text cut off by its own box (no ellipsis), or a badge whose text is not centred;
 * - overlap: two controls side by side that overlap;
 * - grouping: an item's title closer to the item before it than to its own text, or stacked
 *   cards touching each other.
 */
export async function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    const width = window.innerWidth;
    const name = (element: Element) => {
      const text = (element.textContent ?? "").trim().replace(/\s+/g, " ").slice(0, 40);
      return `${element.tagName.toLowerCase()}${element.className && typeof element.className === "string" ? `.${element.className.trim().split(/\s+/).join(".")}` : ""}${text ? ` "${text}"` : ""}`;
    };
    const visible = (element: Element) => {
      const box = element.getBoundingClientRect();
      const style = getComputedStyle(element);
      return box.width > 0 && box.height > 0 && style.visibility !== "hidden" && style.display !== "none" && !element.closest(".visually-hidden");
    };
    // Inside something that scrolls or clips on purpose (a table, the settings tabs, a scroll pane).
    const inScroller = (element: Element) => {
      for (let parent = element.parentElement; parent && parent !== document.body; parent = parent.parentElement) {
        const overflowX = getComputedStyle(parent).overflowX;
        if (overflowX === "auto" || overflowX === "scroll") return parent.scrollWidth > parent.clientWidth + 1;
      }
      return false;
    };
    if (document.documentElement.scrollWidth > width + 1) problems.push(`overflow: the page is ${document.documentElement.scrollWidth - width}px wider than the window`);
    const all = Array.from(document.querySelectorAll("body *")).filter(visible);
    for (const element of all) {
      const box = element.getBoundingClientRect();
      if (box.right > width + 1 && !inScroller(element) && getComputedStyle(element).position !== "fixed") problems.push(`overflow: ${name(element)} ends ${Math.round(box.right - width)}px right of the window`);
    }
    // Text cut off by its box: controls, pills, headings, labels.
    for (const element of Array.from(document.querySelectorAll<HTMLElement>("button, a, .pill, h1, h2, h3, h4, label, .tree-name, .result-name, .source-name, .folder-row-name, .conversation-title, .toolbar-subtitle"))) {
      if (!visible(element) || element.children.length > 0 && element.matches(".pill") === false && element.textContent?.trim() === "") continue;
      const style = getComputedStyle(element);
      const clipsX = element.scrollWidth > element.clientWidth + 1 && style.overflowX !== "visible";
      if (clipsX && style.textOverflow !== "ellipsis") problems.push(`clipped: ${name(element)} (${element.scrollWidth} > ${element.clientWidth})`);
      const clipsY = element.scrollHeight > element.clientHeight + 2 && style.overflowY !== "visible" && style.overflowY !== "auto";
      if (clipsY) problems.push(`clipped: ${name(element)} is cut at the bottom`);
    }
    // Badge text vertically centred (within 1.5 px).
    for (const pill of Array.from(document.querySelectorAll<HTMLElement>(".pill, .citation, kbd"))) {
      if (!visible(pill)) continue;
      const range = document.createRange();
      range.selectNodeContents(pill);
      const text = Array.from(range.getClientRects()).filter((rect) => rect.height > 0);
      if (text.length === 0) continue;
      const box = pill.getBoundingClientRect();
      const textMiddle = (Math.min(...text.map((rect) => rect.top)) + Math.max(...text.map((rect) => rect.bottom))) / 2;
      if (Math.abs(textMiddle - (box.top + box.bottom) / 2) > 1.5) problems.push(`clipped: the text of ${name(pill)} is ${Math.round(textMiddle - (box.top + box.bottom) / 2)}px off centre`);
      // Two lines: one run of text starts below where another ends (an icon beside the text is on the same line).
      if (Math.max(...text.map((rect) => rect.top)) >= Math.min(...text.map((rect) => rect.bottom)) - 1) problems.push(`clipped: ${name(pill)} wraps onto two lines`);
    }
    // Controls side by side never overlap.
    const controls = all.filter((element) => element.matches("button, a, input, select, textarea, label.button, .pill"));
    for (let i = 0; i < controls.length; i++) {
      for (let j = i + 1; j < controls.length; j++) {
        const a = controls[i] as Element;
        const b = controls[j] as Element;
        if (a.contains(b) || b.contains(a) || a.parentElement !== b.parentElement) continue;
        const boxA = a.getBoundingClientRect();
        const boxB = b.getBoundingClientRect();
        const x = Math.min(boxA.right, boxB.right) - Math.max(boxA.left, boxB.left);
        const y = Math.min(boxA.bottom, boxB.bottom) - Math.max(boxA.top, boxB.top);
        if (x > 1 && y > 1) problems.push(`overlap: ${name(a)} and ${name(b)}`);
      }
    }
    // Stacked blocks (cards, notices, a view's sections) keep a gap: nothing touches the card below.
    for (const container of Array.from(document.querySelectorAll(".view-body, .overview, .results, .chunk-list, .settings-body, .provider-grid, .chat-log"))) {
      const children = Array.from(container.children).filter(visible);
      for (let i = 1; i < children.length; i++) {
        const above = (children[i - 1] as Element).getBoundingClientRect();
        const below = (children[i] as Element).getBoundingClientRect();
        if (below.top >= above.top && below.top - above.bottom < 4 && Math.min(above.right, below.right) > Math.max(above.left, below.left)) problems.push(`grouping: ${name(children[i - 1] as Element)} touches ${name(children[i] as Element)}`);
      }
    }
    // An item's title sits closer to its own text than to the item before it.
    for (const [listSelector, titleSelector, bodySelector] of [[".results", ".result-open", ".snippet"], [".chunk-list", ".chunk-card-header", ".chunk-text"]] as const) {
      for (const list of Array.from(document.querySelectorAll(listSelector))) {
        const items = Array.from(list.children).filter(visible);
        for (let i = 1; i < items.length; i++) {
          const title = (items[i] as Element).querySelector(titleSelector);
          const own = (items[i] as Element).querySelector(bodySelector);
          if (!title || !own) continue;
          const toPrevious = title.getBoundingClientRect().top - (items[i - 1] as Element).getBoundingClientRect().bottom;
          const toOwn = own.getBoundingClientRect().top - title.getBoundingClientRect().bottom;
          if (toOwn >= toPrevious) problems.push(`grouping: ${name(title)} is ${Math.round(toPrevious)}px from the item before and ${Math.round(toOwn)}px from its own text`);
        }
      }
    }
    return [...new Set(problems)];
  });
}
