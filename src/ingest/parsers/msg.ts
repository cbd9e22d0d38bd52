import msgReaderModule, { type FieldsData } from "@kenjiuno/msgreader";
import { ChunkpadError } from "../../core/errors.js";
import type { ParsedDocument, ParseInput, Parser } from "../../core/types.js";
import { hasOleSignature } from "../office-crypto/ole.js";
import { attachmentName, mailDocument, type MailAttachment, type ParserLookup } from "./mail.js";

type MsgReaderClass = typeof msgReaderModule.default;
// A CommonJS package with an ES-style default export: Node hands over the exports object,
// Vite-based runners the class itself.
const MsgReader: MsgReaderClass = (msgReaderModule as { default?: MsgReaderClass }).default ?? (msgReaderModule as unknown as MsgReaderClass);

/** Outlook messages (.msg) through @kenjiuno/msgreader: headers, body, attachments (mail.ts). */
export function createMsgParser(parserFor: ParserLookup): Parser {
  return {
    name: "msg",
    extensions: [".msg"],
    async parse(input: ParseInput): Promise<ParsedDocument> {
      if (!hasOleSignature(input.data)) throw new ChunkpadError("PARSE_MALFORMED", "not an Outlook message (no compound-file structure); check that the file is what its extension says");
      const bytes = input.data.slice();
      const reader = new MsgReader(bytes.buffer);
      let fields: FieldsData;
      try {
        fields = reader.getFileData();
      } catch (error) {
        throw new ChunkpadError("PARSE_MALFORMED", `damaged Outlook message (${error instanceof Error ? error.message : String(error)}); open it in Outlook and save it again`, { cause: error });
      }
      if (fields.error) throw new ChunkpadError("PARSE_MALFORMED", `damaged Outlook message (${fields.error}); open it in Outlook and save it again`);

      const attachments: MailAttachment[] = [];
      const unread: string[] = [];
      (fields.attachments ?? []).forEach((attachment, index) => {
        const name = attachmentName(attachment.fileName ?? attachment.fileNameShort ?? attachment.name, index);
        try {
          const content = reader.getAttachment(attachment).content;
          // An Outlook item attached to a message comes back as a .msg of its own.
          attachments.push({ name: attachment.innerMsgContent && !/\.msg$/i.test(name) ? `${name}.msg` : name, data: content });
        } catch (error) {
          unread.push(`attachment ${name} not read: ${error instanceof Error ? error.message : String(error)}`);
        }
      });
      const recipients = (type: string) =>
        (fields.recipients ?? [])
          .filter((recipient) => (recipient.recipType ?? "to") === type)
          .map((recipient) => (recipient.name && recipient.email && recipient.name !== recipient.email ? `${recipient.name} <${recipient.email}>` : recipient.email ?? recipient.name ?? ""))
          .filter(Boolean)
          .join(", ");
      const sender = fields.senderName && fields.senderEmail && fields.senderName !== fields.senderEmail ? `${fields.senderName} <${fields.senderEmail}>` : fields.senderEmail ?? fields.senderName;
      const document = await mailDocument(
        {
          subject: fields.subject,
          from: sender,
          to: recipients("to"),
          cc: recipients("cc"),
          date: fields.clientSubmitTime ?? fields.messageDeliveryTime ?? fields.creationTime,
          text: fields.body,
          html: fields.bodyHtml,
          attachments,
        },
        input,
        parserFor,
      );
      return { ...document, warnings: [...unread, ...document.warnings] };
    },
  };
}
