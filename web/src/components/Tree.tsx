import { ChevronRight } from "lucide-react";
import { useId, useRef, useState, type KeyboardEvent, type ReactNode } from "react";

export interface TreeNode {
  id: string;
  /** What the row shows (the name with its badges); also the item's accessible name. */
  label: ReactNode;
  /** Present on folders (possibly empty). */
  children?: TreeNode[];
  /** Shown before the label, hidden from screen readers. */
  icon?: ReactNode;
}

interface VisibleNode {
  node: TreeNode;
  parent: string | null;
}

/**
 * A tree view with the keyboard of a desktop tree (WAI-ARIA tree pattern): Up and Down move
 * between visible items, Right opens a folder or enters it, Left closes it or goes to its
 * parent, Home and End jump to the ends, Enter or Space selects. One item is in the tab order.
 */
export function Tree({ label, nodes, selected, onSelect, initiallyOpen = true }: { label: string; nodes: TreeNode[]; selected: string | null; onSelect: (node: TreeNode) => void; initiallyOpen?: boolean }) {
  const [closed, setClosed] = useState<Set<string>>(() => new Set());
  const [opened, setOpened] = useState<Set<string>>(() => new Set());
  const [focused, setFocused] = useState<string | null>(null);
  const items = useRef(new Map<string, HTMLDivElement>());
  const id = useId();
  const isOpen = (id: string) => (initiallyOpen ? !closed.has(id) : opened.has(id));
  const setOpen = (id: string, open: boolean) => {
    const change = (set: Set<string>, add: boolean) => {
      const next = new Set(set);
      if (add) next.add(id);
      else next.delete(id);
      return next;
    };
    if (initiallyOpen) setClosed((set) => change(set, !open));
    else setOpened((set) => change(set, open));
  };
  const visible: VisibleNode[] = [];
  const walk = (list: TreeNode[], parent: string | null) => {
    for (const node of list) {
      visible.push({ node, parent });
      if (node.children && isOpen(node.id)) walk(node.children, node.id);
    }
  };
  walk(nodes, null);
  const current = visible.find((entry) => entry.node.id === focused) ?? visible.find((entry) => entry.node.id === selected) ?? visible[0];
  const tabStop = current?.node.id ?? null;
  const moveTo = (id: string | undefined) => {
    if (id === undefined) return;
    setFocused(id);
    items.current.get(id)?.focus();
  };

  const onKeyDown = (event: KeyboardEvent<HTMLUListElement>) => {
    if (!current) return;
    const index = visible.indexOf(current);
    const { node, parent } = current;
    const handled = ["ArrowDown", "ArrowUp", "ArrowRight", "ArrowLeft", "Home", "End", "Enter", " "];
    if (!handled.includes(event.key)) return;
    event.preventDefault();
    event.stopPropagation();
    if (event.key === "ArrowDown") moveTo(visible[index + 1]?.node.id);
    if (event.key === "ArrowUp") moveTo(visible[index - 1]?.node.id);
    if (event.key === "Home") moveTo(visible[0]?.node.id);
    if (event.key === "End") moveTo(visible.at(-1)?.node.id);
    if (event.key === "ArrowRight" && node.children) {
      if (!isOpen(node.id)) setOpen(node.id, true);
      else moveTo(node.children[0]?.id);
    }
    if (event.key === "ArrowLeft") {
      if (node.children && isOpen(node.id)) setOpen(node.id, false);
      else moveTo(parent ?? undefined);
    }
    if (event.key === "Enter" || event.key === " ") {
      if (node.children) setOpen(node.id, !isOpen(node.id));
      else onSelect(node);
    }
  };

  // Each item is the row alone (named by what it shows); a folder's children follow it in a group it owns.
  const render = (list: TreeNode[], level: number): ReactNode =>
    list.map((node) => {
      const open = node.children !== undefined && isOpen(node.id) && node.children.length > 0;
      return (
        <li key={node.id} role="none">
          <div
            ref={(element) => {
              if (element) items.current.set(node.id, element);
              else items.current.delete(node.id);
            }}
            role="treeitem"
            aria-level={level}
            aria-selected={node.id === selected}
            {...(node.children ? { "aria-expanded": isOpen(node.id) } : {})}
            {...(open ? { "aria-owns": `${id}-${node.id}` } : {})}
            tabIndex={node.id === tabStop ? 0 : -1}
            className="tree-item"
            style={{ paddingLeft: `calc(${(level - 1) * 14}px + var(--space-1))` }}
            onFocus={() => setFocused(node.id)}
            onClick={() => {
              setFocused(node.id);
              if (node.children) setOpen(node.id, !isOpen(node.id));
              else onSelect(node);
            }}
          >
            {node.children ? <ChevronRight aria-hidden="true" size={14} className={isOpen(node.id) ? "tree-twisty tree-twisty-open" : "tree-twisty"} /> : <span className="tree-twisty" aria-hidden="true" />}
            {node.icon}
            {node.label}
          </div>
          {open && (
            <ul role="group" id={`${id}-${node.id}`}>
              {render(node.children ?? [], level + 1)}
            </ul>
          )}
        </li>
      );
    });

  return (
    <ul role="tree" aria-label={label} className="tree" onKeyDown={onKeyDown}>
      {render(nodes, 1)}
    </ul>
  );
}
