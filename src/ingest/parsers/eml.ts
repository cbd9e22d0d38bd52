import PostalMime, { type Address, type Email } from "postal-mime";
import { ChunkpadError } from "../../core/errors.js";
import type { ParsedDocument, ParseInput, Parser } from "../../core/types.js";
import { attachmentName, mailDocument, type ParserLookup } from "./mail.js";

/** Internet mail (.eml, RFC 822/MIME) through postal-mime: headers, body, attachments (mail.ts). */
export function createEmlParser(parserFor: ParserLookup): Parser {
  return {
    name: "eml",
    extensions: [".eml"],
    async parse(input: ParseInput): Promise<ParsedDocument> {
      let email: Email;
      try {
        email = await PostalMime.parse(input.data, { attachmentEncoding: "arraybuffer" });
      } catch (error) {
        throw new ChunkpadError("PARSE_MALFORMED", `not readable as an e-mail message (${error instanceof Error ? error.message : String(error)}); check that the file is a saved .eml message`, { cause: error });
      }
      if (email.headers.length === 0) throw new ChunkpadError("PARSE_MALFORMED", "not an e-mail message: it has no mail headers; check that the file is what its extension says");
      return mailDocument(
        {
          subject: email.subject,
          from: formatAddresses(email.from ? [email.from] : []),
          to: formatAddresses(email.to ?? []),
          cc: formatAddresses(email.cc ?? []),
          date: email.date,
          text: email.text,
          html: email.html,
          attachments: email.attachments.map((attachment, index) => ({
            name: attachmentName(attachment.filename ?? (attachment.mimeType === "message/rfc822" ? "message.eml" : undefined), index),
            data: typeof attachment.content === "string" ? new TextEncoder().encode(attachment.content) : new Uint8Array(attachment.content),
          })),
        },
        input,
        parserFor,
      );
    },
  };
}

function formatAddresses(addresses: readonly Address[]): string | undefined {
  const mailboxes = addresses.flatMap((address) => (address.group ? address.group : [address]));
  const text = mailboxes.map((mailbox) => (mailbox.name && mailbox.address ? `${mailbox.name} <${mailbox.address}>` : mailbox.name || mailbox.address || "")).filter(Boolean).join(", ");
  return text || undefined;
}
