import cfb from "cfb";

/**
 * Small documents the shared corpus lacks, built in the test that uses them: mail (.eml, .msg),
 * flat OpenDocument, Word 2003 XML. Each is the smallest file its format's readers accept.
 */

export interface MailFixture {
  subject: string;
  fromName: string;
  fromAddress: string;
  to: string;
  /** RFC 2822 date for .eml; a Date for .msg. */
  date: Date;
  body: string;
  attachments: Array<{ name: string; contentType: string; data: Uint8Array }>;
}

/** A message from Ada to the team on 5 March 2024; the test gives subject, body and attachments. */
export function mailFixture(content: Pick<MailFixture, "subject" | "body" | "attachments">): MailFixture {
  return { fromName: "Ada Lovelace", fromAddress: "ada@example.com", to: "team@example.com", date: new Date(Date.UTC(2024, 2, 5, 9, 30)), ...content };
}

/** A multipart MIME message with base64 attachments. */
export function buildEml(mail: MailFixture): string {
  const boundary = "chunkpad-boundary-42";
  const parts = [
    `--${boundary}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n${mail.body}\r\n`,
    ...mail.attachments.map(
      (attachment) =>
        `--${boundary}\r\nContent-Type: ${attachment.contentType}; name="${attachment.name}"\r\nContent-Disposition: attachment; filename="${attachment.name}"\r\nContent-Transfer-Encoding: base64\r\n\r\n${Buffer.from(attachment.data).toString("base64").replace(/.{76}/g, "$&\r\n")}\r\n`,
    ),
  ];
  return [
    `From: ${mail.fromName} <${mail.fromAddress}>`,
    `To: ${mail.to}`,
    `Subject: ${mail.subject}`,
    `Date: ${mail.date.toUTCString()}`,
    "MIME-Version: 1.0",
    `Content-Type: multipart/mixed; boundary="${boundary}"`,
    "",
    ...parts,
    `--${boundary}--`,
    "",
  ].join("\r\n");
}

/** Property stream entries: tag, then an 8-byte value ([MS-OXMSG] 2.4). */
function propertyStream(headerBytes: number, entries: Array<[number, Buffer]>): Buffer {
  const stream = Buffer.alloc(headerBytes + entries.length * 16);
  entries.forEach(([tag, value], index) => {
    const offset = headerBytes + index * 16;
    stream.writeUInt32LE(tag, offset);
    stream.writeUInt32LE(0x6, offset + 4); // readable, writable
    value.copy(stream, offset + 8);
  });
  return stream;
}

const unicode = (text: string) => Buffer.from(text, "utf16le");

/**
 * An Outlook message as [MS-OXMSG] lays it out in a compound file: string properties in
 * __substg1.0_XXXXYYYY streams, fixed ones (the submit time) in __properties_version1.0, one
 * storage per attachment. No real .msg is in the corpus and none can be made without Outlook.
 */
export function buildMsg(mail: MailFixture): Uint8Array {
  const container = cfb.utils.cfb_new();
  const fileTime = Buffer.alloc(8);
  fileTime.writeBigUInt64LE((BigInt(mail.date.getTime()) + 11_644_473_600_000n) * 10_000n);
  const top = propertyStream(32, [[0x00390040, fileTime]]); // PidTagClientSubmitTime
  top.writeUInt32LE(mail.attachments.length, 12); // next attachment id
  top.writeUInt32LE(mail.attachments.length, 20); // attachment count
  cfb.utils.cfb_add(container, "/__properties_version1.0", top);
  cfb.utils.cfb_add(container, "/__substg1.0_0037001F", unicode(mail.subject));
  cfb.utils.cfb_add(container, "/__substg1.0_1000001F", unicode(mail.body));
  cfb.utils.cfb_add(container, "/__substg1.0_0C1A001F", unicode(mail.fromName));
  cfb.utils.cfb_add(container, "/__substg1.0_0C1F001F", unicode(mail.fromAddress));
  cfb.utils.cfb_add(container, "/__substg1.0_0E04001F", unicode(mail.to)); // PidTagDisplayTo
  mail.attachments.forEach((attachment, index) => {
    const storage = `/__attach_version1.0_#${index.toString(16).toUpperCase().padStart(8, "0")}`;
    cfb.utils.cfb_add(container, `${storage}/__properties_version1.0`, propertyStream(8, []));
    cfb.utils.cfb_add(container, `${storage}/__substg1.0_3707001F`, unicode(attachment.name));
    cfb.utils.cfb_add(container, `${storage}/__substg1.0_37010102`, Buffer.from(attachment.data));
  });
  return new Uint8Array(cfb.write(container, { type: "buffer" }) as Buffer);
}

const FLAT_NAMESPACES =
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" xmlns:dc="http://purl.org/dc/elements/1.1/"';

/** A flat OpenDocument file (one XML file) around an office:body's content. */
export function buildFlatOpenDocument(mimetype: "text" | "spreadsheet" | "presentation", title: string, body: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<office:document ${FLAT_NAMESPACES} office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.${mimetype}">
 <office:meta><dc:title>${title}</dc:title></office:meta>
 <office:body><office:${mimetype}>${body}</office:${mimetype}></office:body>
</office:document>
`;
}

/** A Word 2003 XML document (what Word's "Save as XML Document" wrote), styles included. */
export function buildWordml(paragraphs: Array<{ style?: string; text: string }>): string {
  const body = paragraphs
    .map((paragraph) => `<w:p>${paragraph.style ? `<w:pPr><w:pStyle w:val="${paragraph.style}"/></w:pPr>` : ""}<w:r><w:t>${paragraph.text}</w:t></w:r></w:p>`)
    .join("");
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<?mso-application progid="Word.Document"?>
<w:wordDocument xmlns:w="http://schemas.microsoft.com/office/word/2003/wordml" xmlns:wx="http://schemas.microsoft.com/office/word/2003/auxHint" xmlns:o="urn:schemas-microsoft-com:office:office">
<o:DocumentProperties><o:Title>Field guide</o:Title></o:DocumentProperties>
<w:styles><w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/></w:style><w:style w:type="paragraph" w:styleId="berschrift2"><w:name w:val="heading 2"/></w:style></w:styles>
<w:body><wx:sect>${body}<w:sectPr/></wx:sect></w:body>
</w:wordDocument>
`;
}
