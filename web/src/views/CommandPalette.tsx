import * as RadixDialog from "@radix-ui/react-dialog";
import { Command } from "cmdk";

export interface PaletteCommand {
  id: string;
  group: string;
  label: string;
  shortcut?: string;
  run: () => void;
}

/** Ctrl/Cmd+K: every action by name; type to filter, arrows to choose, Enter to run. */
export function CommandPalette({ open, onClose, commands }: { open: boolean; onClose: () => void; commands: PaletteCommand[] }) {
  const groups = [...new Set(commands.map((command) => command.group))];
  return (
    <RadixDialog.Root open={open} onOpenChange={(next) => !next && onClose()}>
      <RadixDialog.Portal>
        <RadixDialog.Overlay className="dialog-overlay" />
        <RadixDialog.Content className="palette" aria-describedby={undefined}>
          <RadixDialog.Title className="visually-hidden">Command palette</RadixDialog.Title>
          <Command label="Commands" loop>
            <Command.Input className="palette-input" placeholder="Type a command or a folder…" aria-label="Command" />
            <Command.List className="palette-list">
              <Command.Empty className="palette-empty">No command matches.</Command.Empty>
              {groups.map((group) => (
                <Command.Group key={group} heading={group} className="palette-group">
                  {commands
                    .filter((command) => command.group === group)
                    .map((command) => (
                      <Command.Item
                        key={command.id}
                        value={`${command.group} ${command.label}`}
                        className="palette-item"
                        onSelect={() => {
                          onClose();
                          command.run();
                        }}
                      >
                        <span>{command.label}</span>
                        {command.shortcut && <kbd>{command.shortcut}</kbd>}
                      </Command.Item>
                    ))}
                </Command.Group>
              ))}
            </Command.List>
          </Command>
        </RadixDialog.Content>
      </RadixDialog.Portal>
    </RadixDialog.Root>
  );
}
